// The same declarations seen from CommonJS (`require`).
import dory = require("dory-wire");

const reader = new dory.OutputReader("process_output");
reader.open(200, "application/x-ndjson");
const events: dory.Event[] = reader.feed(new Uint8Array(0));
const preview: dory.Preview = dory.bound("x", { maxLines: 3, maxBytes: 300 });
void [events, preview, reader.finish()];
