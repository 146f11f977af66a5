// The same declarations seen from CommonJS (`require`).
import dory = require("dory-wire");

const reader = new dory.Reader("process_output");
reader.open(200, "application/x-ndjson");
const transcript = new dory.Transcript();
const events: dory.Event[] = reader.feedInto(new Uint8Array(0), transcript);
const preview: dory.Preview = dory.bound("x", { maxLines: 3, maxBytes: 300 });
const [last, end]: [dory.Event[], dory.End] = reader.finish();
const follower: dory.Follower = dory.Follower.processOutput("c1", "p1");
const request: dory.Request = follower.request();
const decision: dory.Decision = follower.noResponse("refused", 0);
const error: typeof dory.StreamDisconnected = dory.StreamDisconnected;
void [events, preview, last, end, transcript.text("stdout"), dory.ERROR_CODES.length, request.target, decision.type, error, dory.Request.kill("c1", "p1")];
