// The same declarations seen from CommonJS (`require`).
import dory = require("dory-wire");

const reader = new dory.Reader("process_output");
reader.open(200, "application/x-ndjson");
const transcript = new dory.Transcript();
const events: dory.Event[] = reader.feedInto(new Uint8Array(0), transcript);
const preview: dory.Preview = dory.bound("x", { maxLines: 3, maxBytes: 300 });
const [last, end]: [dory.Event[], dory.End] = reader.finish();
void [events, preview, last, end, transcript.text("stdout"), dory.ERROR_CODES.length];
