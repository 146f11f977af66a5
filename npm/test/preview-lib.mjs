// Preview vectors and the preview invariants of docs/VECTORS.md, free of
// Node imports (the browser test can use it too).
import { hashString, lacksTokenizer, randomCuts, splitAt, tokenizerRefusals, tokenOptions, tokenProblems, vectorInput } from "./vector-lib.mjs";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function fail(message) {
  throw new Error(message);
}

function check(cond, message) {
  if (!cond) fail(message);
}

/** Lines as docs/preview.md counts them: runs ending with \n, plus a final run without one. */
export function countLines(bytes) {
  let n = 0;
  for (let i = 0; i < bytes.length; i++) if (bytes[i] === 10) n++;
  if (bytes.length > 0 && bytes[bytes.length - 1] !== 10) n++;
  return n;
}

/** Counts lines of a string's UTF-8 bytes. */
export function countTextLines(text) {
  return countLines(encoder.encode(text));
}

/** The spill writer a vector asks for (sync). */
export function vectorWriter(spill) {
  if (spill === undefined || spill === null) return undefined;
  if (spill.fails) {
    return () => {
      throw new Error("disk full (vector writer)");
    };
  }
  return () => spill.path;
}

function isNotice(line) {
  return line.startsWith("[... ") && line.endsWith(" ...]") && line.includes("omitted");
}

/**
 * Checks the invariants every preview must keep, whatever the vector expects:
 * valid UTF-8 within both limits, head a rendering of a prefix and tail of a
 * suffix of the input, exactly one notice line when truncated, counts that add up.
 */
export function checkInvariants(input, maxLines, maxBytes, p, where, hint) {
  check(typeof p.text === "string", `${where}: text is not a string`);
  check(p.text.isWellFormed ? p.text.isWellFormed() : true, `${where}: text is not valid UTF-16 (lone surrogate)`);
  const textBytes = encoder.encode(p.text);
  check(textBytes.length <= maxBytes, `${where}: ${textBytes.length} bytes > maxBytes ${maxBytes}`);
  check(countLines(textBytes) <= maxLines, `${where}: ${countLines(textBytes)} lines > maxLines ${maxLines}`);
  check(p.totalBytes === input.length, `${where}: totalBytes ${p.totalBytes} != ${input.length}`);
  check(p.totalLines === countLines(input), `${where}: totalLines ${p.totalLines} != ${countLines(input)}`);
  check(
    p.headBytes + p.omittedBytes + p.tailBytes === p.totalBytes,
    `${where}: head ${p.headBytes} + omitted ${p.omittedBytes} + tail ${p.tailBytes} != total ${p.totalBytes}`,
  );
  const head = decoder.decode(input.subarray(0, p.headBytes));
  const tail = decoder.decode(input.subarray(input.length - p.tailBytes));
  if (!p.truncated) {
    check(p.text === decoder.decode(input), `${where}: not truncated but the text is not the input`);
    check(p.omittedBytes === 0 && p.omittedLines === 0 && p.omittedRange === null, `${where}: omissions without truncation`);
    check(p.spillPath === null, `${where}: spill path without truncation`);
    return;
  }
  check(p.text.startsWith(head), `${where}: the text does not start with the rendering of the head bytes`);
  check(p.text.endsWith(tail), `${where}: the text does not end with the rendering of the tail bytes`);
  check(p.headBytes + p.tailBytes <= input.length, `${where}: head and tail overlap`);
  const middle = p.text.slice(head.length, p.text.length - tail.length);
  const notices = p.text.split("\n").filter(isNotice);
  check(notices.length === 1, `${where}: ${notices.length} notice lines, expected 1`);
  check(middle.replace(/\n/g, "") === notices[0], `${where}: between head and tail there must be the notice line only, got ${JSON.stringify(middle)}`);
  check(p.omittedBytes > 0 || p.omittedLines >= 0, `${where}: nothing omitted but truncated`);
  check(Array.isArray(p.omittedRange), `${where}: truncated without omittedRange`);
  const [first, last] = p.omittedRange;
  check(first >= 1 && last >= first && last <= p.totalLines, `${where}: omittedRange ${first}-${last} out of 1-${p.totalLines}`);
  check(last - first + 1 === p.omittedLines, `${where}: omittedLines ${p.omittedLines} != range ${first}-${last}`);
  const allowed = expectedNotices(input, p, hint);
  if (p.spillPath !== null && hint === undefined) {
    // The caller's hint (unknown here) may follow the command.
    const stem = allowed[0].slice(0, -" ...]".length);
    check(notices[0] === allowed[0] || notices[0].startsWith(`${stem}; `), `${where}: notice ${JSON.stringify(notices[0])} is not ${JSON.stringify(allowed[0])}`);
  } else {
    check(allowed.includes(notices[0]), `${where}: notice ${JSON.stringify(notices[0])} is none of ${JSON.stringify(allowed)}`);
  }
  if (p.spillPath === null) check(!notices[0].includes("sed -n"), `${where}: a command without a path`);
}

/** `path` as one POSIX shell word: as it is when every character is in [A-Za-z0-9/._+,:@%=-], else single-quoted. */
export function shellWord(path) {
  if (/^[A-Za-z0-9/._+,:@%=-]+$/.test(path)) return path;
  return `'${path.replaceAll("'", "'\\''")}'`;
}

/**
 * The notices docs/preview.md allows for this preview: the pointer form when
 * it names a path, else the plain, compact and minimal forms.
 */
export function expectedNotices(input, p, hint) {
  const [first, last] = p.omittedRange;
  const tailStart = input.length - p.tailBytes;
  const firstPartial = p.headBytes > 0 && input[p.headBytes - 1] !== 10;
  const lastPartial = p.tailBytes > 0 && input[tailStart - 1] !== 10;
  const counted = `${p.omittedBytes} ${p.omittedBytes === 1 ? "byte" : "bytes"} omitted`;
  let where = `${first === last ? `line ${first}` : `lines ${first}-${last}`} of ${p.totalLines}`;
  if (firstPartial || lastPartial) {
    if (first === last) where += ", partly shown";
    else if (firstPartial && lastPartial) where += `, ${first} and ${last} partly shown`;
    else where += `, ${firstPartial ? first : last} partly shown`;
  }
  if (p.spillPath !== null) {
    let pointer = `; sed -n '${first},${last}p' ${shellWord(p.spillPath)}`;
    if (hint) pointer += `; ${hint}`;
    return [`[... ${counted}: ${where}${pointer} ...]`];
  }
  return [`[... ${counted}: ${where} ...]`, `[... ${counted} ...]`, "[... omitted ...]"];
}

function checkExpect(exp, p, where) {
  if (exp.preview !== undefined) check(p.text === exp.preview, `${where}: preview\n  expected ${JSON.stringify(exp.preview)}\n  got      ${JSON.stringify(p.text)}`);
  if (exp.truncated !== undefined) check(p.truncated === exp.truncated, `${where}: truncated ${p.truncated}, expected ${exp.truncated}`);
  if (exp.omitted_lines !== undefined) check(p.omittedLines === exp.omitted_lines, `${where}: omittedLines ${p.omittedLines}, expected ${exp.omitted_lines}`);
  if (exp.omitted_bytes !== undefined) check(p.omittedBytes === exp.omitted_bytes, `${where}: omittedBytes ${p.omittedBytes}, expected ${exp.omitted_bytes}`);
  if (exp.omitted_range !== undefined) {
    check(JSON.stringify(p.omittedRange) === JSON.stringify(exp.omitted_range), `${where}: omittedRange ${JSON.stringify(p.omittedRange)}, expected ${JSON.stringify(exp.omitted_range)}`);
  }
  if (exp.starts_with !== undefined) check(p.text.startsWith(exp.starts_with), `${where}: does not start with ${JSON.stringify(exp.starts_with)}: ${JSON.stringify(p.text)}`);
  if (exp.ends_with !== undefined) check(p.text.endsWith(exp.ends_with), `${where}: does not end with ${JSON.stringify(exp.ends_with)}: ${JSON.stringify(p.text)}`);
  for (const s of exp.contains ?? []) check(p.text.includes(s), `${where}: does not contain ${JSON.stringify(s)}: ${JSON.stringify(p.text)}`);
  for (const s of exp.not_contains ?? []) check(!p.text.includes(s), `${where}: contains ${JSON.stringify(s)}: ${JSON.stringify(p.text)}`);
  if (exp.tokens !== undefined) check(p.tokens === Number(exp.tokens), `${where}: tokens ${p.tokens}, expected ${exp.tokens}`);
}

/** The spill id the tests pin (the default with a writer is random). */
export const FIXED_SPILL_ID = "0123456789abcdef0123456789abcdef";

/** The streaming bounder over seeded random chunks of `input`. */
export function streamPreview(api, input, options, seed) {
  const sb = new api.StreamingBounder({
    maxLines: options.maxLines,
    maxBytes: options.maxBytes,
    maxTokens: options.maxTokens,
    tokenizer: options.tokenizer,
    spillId: options.spillId,
    keep: options.keep,
    terminal: options.terminal,
  });
  for (const chunk of splitAt(input, randomCuts(input.length, seed))) sb.push(chunk);
  const writer = options.spill;
  return sb.finish({ spill: writer ? (id) => writer(id, input) : undefined, hint: options.hint });
}

/**
 * Runs one preview vector: expectation, invariants, tokens counted again,
 * idempotence, streaming = whole. A vector whose tokenizer this build lacks
 * is refused instead (docs/VECTORS.md), by `bound` and `StreamingBounder`.
 */
export function checkPreviewVector(api, v) {
  const input = vectorInput(v);
  // docs/VECTORS.md: the token limit, passed to every bounder (absent: none).
  const tokens = tokenOptions(v);
  const options = { maxLines: v.max_lines, maxBytes: v.max_bytes, ...tokens, spill: vectorWriter(v.spill), hint: v.hint ?? undefined };
  // docs/VECTORS.md: the options keep and terminal (absent: off).
  const withOptions = v.keep !== undefined && v.keep !== null || v.terminal === true;
  if (v.keep !== undefined) options.keep = v.keep;
  if (v.terminal !== undefined) options.terminal = v.terminal;
  // A fixed id: with a writer the default is random (docs/preview.md), and the
  // streaming and whole results are compared field by field.
  options.spillId = v.spill_id ?? FIXED_SPILL_ID;
  const exp = v.expect ?? {};
  const streamingOptions = { maxLines: v.max_lines, maxBytes: v.max_bytes, ...tokens, keep: options.keep, terminal: options.terminal };
  if (lacksTokenizer(api, v)) {
    // What a caller of this build gets, whatever the vector expects of a build that has it.
    const problems = tokenizerRefusals(api, [
      ["bound", () => api.bound(input, options)],
      ["new StreamingBounder", () => new api.StreamingBounder(streamingOptions)],
    ]);
    check(problems.length === 0, `${v.name}: ${problems.join("; ")}`);
    return;
  }
  if (exp.error) {
    // A refused keep pattern is refused when the bounder is built; a cut the limits refuse, at finish.
    const refusedAtOnce = exp.error.code === "invalid_argument";
    const streaming = refusedAtOnce ? undefined : new api.StreamingBounder(streamingOptions);
    streaming?.push(input);
    for (const [what, call] of [
      ["bound", () => api.bound(input, options)],
      refusedAtOnce ? ["new StreamingBounder", () => new api.StreamingBounder(streamingOptions)] : ["StreamingBounder.finish", () => streaming.finish()],
    ]) {
      let thrown;
      try {
        call();
      } catch (err) {
        thrown = err;
      }
      check(thrown instanceof api.DoryWireError, `${v.name}: ${what}: expected a DoryWireError ${exp.error.code}, got ${thrown}`);
      check(thrown.code === exp.error.code, `${v.name}: ${what}: error code ${thrown.code}, expected ${exp.error.code}`);
    }
    return;
  }
  const p = api.bound(input, options);
  checkExpect(exp, p, v.name);
  if (withOptions) {
    // Kept lines and rendering change the shape of head + notice + tail: the limits and the counts still hold.
    const size = new TextEncoder().encode(p.text).length;
    check(size <= v.max_bytes && countTextLines(p.text) <= v.max_lines, `${v.name}: ${size} bytes, ${countTextLines(p.text)} lines over the limits`);
    check(p.headBytes + p.omittedBytes + p.tailBytes === p.totalBytes, `${v.name}: the bytes do not add up`);
    check(p.truncated === (p.spillId !== null), `${v.name}: spillId`);
  } else {
    checkInvariants(input, v.max_lines, v.max_bytes, p, v.name, v.hint ?? undefined);
  }
  const counted = tokenProblems(api, v, p, v.name);
  check(counted.length === 0, counted.join("; "));
  const again = api.bound(p.text, { maxLines: v.max_lines, maxBytes: v.max_bytes, ...tokens });
  check(again.text === p.text && !again.truncated, `${v.name}: bounding the preview again changed it`);
  check(again.tokens === p.tokens, `${v.name}: bounding the preview again counted ${again.tokens} tokens, not ${p.tokens}`);
  for (let s = 0; s < 3; s++) {
    const seed = (hashString(v.name) + s * 104729) >>> 0;
    const streamed = streamPreview(api, input, options, seed);
    check(
      JSON.stringify(streamed) === JSON.stringify(p),
      `${v.name}: streaming (seed ${seed}) differs from whole:\n  ${JSON.stringify(streamed)}\n  ${JSON.stringify(p)}`,
    );
  }
}
