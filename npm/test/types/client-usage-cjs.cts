// dory-wire/client seen from CommonJS (`require`).
import client = require("dory-wire/client");

async function read(): Promise<void> {
  const c = new client.Client({ baseUrl: "http://127.0.0.1:8080" });
  const computer = await c.computers.get("c1");
  const handle = await computer.processes.get("p_1");
  const transcript: client.Transcript = await handle.readOutput();
  const stream: client.OutputStream = handle.iterOutput({ stdout_offset: 7 });
  for await (const frame of stream) if (frame.type === "stdout") void frame.bytes;
  void [transcript.bytes("stdout"), client.StreamDisconnected, client.OutputGap];
  c.close();
}
void read;
