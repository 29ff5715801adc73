// An independent pitchnet client for Node (v20+), written from PROTOCOL.md alone.
//
// Why it exists: the protocol claims to be complete enough to write a client in another
// language from it alone. This client is that claim tested (tests/test_node_client.py):
// it shares no code with the Python client, so a change to the wire that a non-Python
// client would see (a field renamed, a type changed, a frame the spec does not allow)
// breaks it. No npm dependencies: the msgpack subset, the framing and the proofs are
// written here from the spec.
//
// Usage: node pitch.mjs HOST:PORT [--name NAME] [--seed N] [--spectator]
//          [--reconnect-after N] [--deadline SECONDS] [--lang X (ignored: codes are raw)]
// Exit 0 when the match ends, printing one JSON line (hands, scores, error codes...).
// Non-zero: 2 a schema problem, 3 a host that could not prove the seat's token,
// 4 past the deadline, 5 the host closed or refused us, 1 anything else.

import net from "node:net";
import crypto from "node:crypto";

// ---------- msgpack (PROTOCOL.md section 1: the subset the protocol uses) ----------

/** A number that must go on the wire as a float64 (a ping's `t`, echoed in `pong`). */
export class F64 {
  constructor(value) {
    this.value = value;
  }
}

class Encoder {
  constructor() {
    this.parts = [];
  }
  bytes(array) {
    this.parts.push(Buffer.from(array));
  }
  value(v) {
    if (v === null || v === undefined) return this.bytes([0xc0]);
    if (v === false) return this.bytes([0xc2]);
    if (v === true) return this.bytes([0xc3]);
    if (v instanceof F64) {
      const b = Buffer.alloc(9);
      b[0] = 0xcb;
      b.writeDoubleBE(v.value, 1);
      return this.parts.push(b);
    }
    if (typeof v === "number") return Number.isInteger(v) ? this.int(v) : this.value(new F64(v));
    if (typeof v === "string") return this.str(v);
    if (Array.isArray(v)) {
      this.header(v.length, 0x90, 0xdc, 0xdd);
      for (const item of v) this.value(item);
      return;
    }
    if (typeof v === "object") {
      const keys = Object.keys(v);
      this.header(keys.length, 0x80, 0xde, 0xdf);
      for (const k of keys) {
        this.str(k);
        this.value(v[k]);
      }
      return;
    }
    throw new Error(`cannot encode ${typeof v}`);
  }
  header(n, fix, c16, c32) {
    if (n < 16) return this.bytes([fix | n]);
    const b = Buffer.alloc(n < 0x10000 ? 3 : 5);
    b[0] = n < 0x10000 ? c16 : c32;
    if (n < 0x10000) b.writeUInt16BE(n, 1);
    else b.writeUInt32BE(n, 1);
    this.parts.push(b);
  }
  int(n) {
    if (!Number.isSafeInteger(n)) throw new Error(`int out of range: ${n}`);
    if (n >= 0 && n < 128) return this.bytes([n]);
    if (n < 0 && n >= -32) return this.bytes([0x100 + n]);
    const b = Buffer.alloc(9);
    if (n >= 0) {
      b[0] = 0xcf;
      b.writeBigUInt64BE(BigInt(n), 1);
    } else {
      b[0] = 0xd3;
      b.writeBigInt64BE(BigInt(n), 1);
    }
    this.parts.push(b);
  }
  str(s) {
    const body = Buffer.from(s, "utf8");
    const n = body.length;
    if (n < 32) this.bytes([0xa0 | n]);
    else if (n < 0x100) this.bytes([0xd9, n]);
    else if (n < 0x10000) this.bytes([0xda, n >> 8, n & 0xff]);
    else throw new Error("string too long");
    this.parts.push(body);
  }
}

export function pack(value) {
  const e = new Encoder();
  e.value(value);
  return Buffer.concat(e.parts);
}

/** The host's limits on its own frames (section 1, "What a frame may contain"). */
const HOST_LIMITS = { items: 256, depth: 8, strBytes: 512, frame: 65536 };

class Decoder {
  constructor(buf) {
    this.buf = buf;
    this.pos = 0;
  }
  need(n) {
    if (this.pos + n > this.buf.length) throw new Error("truncated msgpack value");
  }
  u8() {
    this.need(1);
    return this.buf[this.pos++];
  }
  take(n) {
    this.need(n);
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }
  uint(n) {
    const b = this.take(n);
    if (n === 1) return b[0];
    if (n === 2) return b.readUInt16BE(0);
    if (n === 4) return b.readUInt32BE(0);
    return safe(b.readBigUInt64BE(0));
  }
  sint(n) {
    const b = this.take(n);
    if (n === 1) return b.readInt8(0);
    if (n === 2) return b.readInt16BE(0);
    if (n === 4) return b.readInt32BE(0);
    return safe(b.readBigInt64BE(0));
  }
  str(n) {
    if (n > HOST_LIMITS.strBytes) throw new Error(`str of ${n} bytes (limit 512)`);
    return this.take(n).toString("utf8");
  }
  value(depth) {
    const c = this.u8();
    if (c < 0x80) return c;
    if (c >= 0xe0) return c - 0x100;
    if ((c & 0xe0) === 0xa0) return this.str(c & 0x1f);
    if ((c & 0xf0) === 0x90) return this.array(c & 0x0f, depth);
    if ((c & 0xf0) === 0x80) return this.map(c & 0x0f, depth);
    switch (c) {
      case 0xc0:
        return null;
      case 0xc2:
        return false;
      case 0xc3:
        return true;
      case 0xca:
        return new F64(this.take(4).readFloatBE(0));
      case 0xcb:
        return new F64(this.take(8).readDoubleBE(0));
      case 0xcc:
        return this.uint(1);
      case 0xcd:
        return this.uint(2);
      case 0xce:
        return this.uint(4);
      case 0xcf:
        return this.uint(8);
      case 0xd0:
        return this.sint(1);
      case 0xd1:
        return this.sint(2);
      case 0xd2:
        return this.sint(4);
      case 0xd3:
        return this.sint(8);
      case 0xd9:
        return this.str(this.uint(1));
      case 0xda:
        return this.str(this.uint(2));
      case 0xdb:
        return this.str(this.uint(4));
      case 0xdc:
        return this.array(this.uint(2), depth);
      case 0xdd:
        return this.array(this.uint(4), depth);
      case 0xde:
        return this.map(this.uint(2), depth);
      case 0xdf:
        return this.map(this.uint(4), depth);
      default:
        // bin (c4-c6), ext and fixext (c7-c9, d4-d8) are refused by the protocol.
        throw new Error(`msgpack type 0x${c.toString(16)} is not allowed on the wire`);
    }
  }
  container(n, depth) {
    if (n > HOST_LIMITS.items) throw new Error(`${n} items (limit 256)`);
    if (depth + 1 > HOST_LIMITS.depth) throw new Error("nested deeper than 8 levels");
  }
  array(n, depth) {
    this.container(n, depth);
    const out = [];
    for (let i = 0; i < n; i++) out.push(this.value(depth + 1));
    return out;
  }
  map(n, depth) {
    this.container(n, depth);
    const out = Object.create(null);
    for (let i = 0; i < n; i++) {
      const k = this.value(depth + 1);
      if (typeof k !== "string") throw new Error("a map key that is not a str");
      out[k] = this.value(depth + 1);
    }
    return out;
  }
}

function safe(big) {
  if (big > BigInt(Number.MAX_SAFE_INTEGER) || big < -BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new Error("int beyond 2^53-1");
  }
  return Number(big);
}

/** One frame's body: exactly one msgpack map, floats kept as F64 (to echo `t` exactly). */
export function unpack(body) {
  const d = new Decoder(body);
  const value = d.value(0);
  if (d.pos !== body.length) throw new Error("trailing bytes after the frame's value");
  if (value === null || typeof value !== "object" || Array.isArray(value) || value instanceof F64) {
    throw new Error("a frame that is not a map");
  }
  return value;
}

/** Splits a byte stream into frames: 4-byte big-endian length, then one msgpack map. */
class Framer {
  constructor() {
    this.buf = Buffer.alloc(0);
  }
  feed(chunk) {
    this.buf = Buffer.concat([this.buf, chunk]);
    const frames = [];
    while (this.buf.length >= 4) {
      const n = this.buf.readUInt32BE(0);
      if (n === 0 || n > HOST_LIMITS.frame) throw new Error(`frame of ${n} bytes from the host`);
      if (this.buf.length < 4 + n) break;
      frames.push(unpack(this.buf.subarray(4, 4 + n)));
      this.buf = this.buf.subarray(4 + n);
    }
    return frames;
  }
}

function frame(message) {
  const body = pack(message);
  const head = Buffer.alloc(4);
  head.writeUInt32BE(body.length, 0);
  return Buffer.concat([head, body]);
}

/** Plain JS values for logging and for the rest of the client (F64 -> number). */
function plain(v) {
  if (v instanceof F64) return v.value;
  if (Array.isArray(v)) return v.map(plain);
  if (v !== null && typeof v === "object") {
    const out = {};
    for (const k of Object.keys(v)) out[k] = plain(v[k]);
    return out;
  }
  return v;
}

// ---------- proofs (section 7) ----------

export function proof(secret, nonce, tableId, purpose) {
  return crypto
    .createHmac("sha256", Buffer.from(secret, "utf8"))
    .update(`${nonce}\0${tableId}\0${purpose}`, "utf8")
    .digest("hex");
}

// ---------- the schema a client relies on (sections 3, 4, 5) ----------

const INT = (v) => Number.isInteger(v);
const FLOAT = (v) => v instanceof F64 || Number.isInteger(v);
const STR = (v) => typeof v === "string";
const BOOL = (v) => typeof v === "boolean";
const MAP = (v) => v !== null && typeof v === "object" && !Array.isArray(v) && !(v instanceof F64);
const ARR = (v) => Array.isArray(v);
const OR_NIL = (t) => (v) => v === null || t(v);
const CARD = (v) => typeof v === "string" && /^([2-9TJQKA][CDHS]|JK)$/.test(v);
const ARR_OF = (t) => (v) => Array.isArray(v) && v.every(t);
const PAIR = (t) => (v) => Array.isArray(v) && v.length === 2 && INT(v[0]) && t(v[1]);

const SCHEMA = {
  challenge: { version: INT, nonce: STR, table_id: STR },
  welcome: {
    version: INT,
    table_id: STR,
    table_name: STR,
    seat: INT,
    heartbeat: FLOAT,
    token: OR_NIL(STR),
    last_id: INT,
    spectator: BOOL,
    proof: OR_NIL(STR),
  },
  state: { seq: INT, table: MAP, view: OR_NIL(MAP), events: ARR_OF(MAP) },
  ack: { id: INT, duplicate: BOOL },
  error: { code: STR, message: STR, id: OR_NIL(INT), fatal: BOOL },
  bye: { reason: STR, code: STR },
  ping: { t: FLOAT },
  pong: { t: FLOAT },
};
// Fields section 3 marks optional: absent is allowed, but when present the type holds.
const OPTIONAL = new Set(["welcome.token", "welcome.last_id", "welcome.spectator",
  "welcome.proof", "state.events", "ack.duplicate", "error.id", "error.fatal", "bye.code"]);

const TABLE = {
  id: STR, name: STR, state: STR, players: INT, partnership: BOOL, target: INT, rules: MAP,
  bot_level: STR, turn_timer: FLOAT, reactions: BOOL, spectator_reactions: BOOL, coach: BOOL,
  seats: ARR_OF(MAP), starter: OR_NIL(INT), password: BOOL, grace: FLOAT, substitute: BOOL,
  waiting_for: ARR_OF(INT), waiting: FLOAT, ready_left: OR_NIL(FLOAT), spectators: INT,
  match: INT,
};
const SEAT = {
  name: STR, kind: STR, connected: BOOL, substitute: BOOL, away: FLOAT, ready: BOOL,
  claimed_by: STR, rotate: BOOL,
};
const VIEW = {
  seat: INT, players: INT, partnership: BOOL, target: INT, phase: STR, hand_number: INT,
  dealer: INT, turn: OR_NIL(INT), hand: ARR_OF(CARD), hand_counts: ARR_OF(INT),
  bids: ARR_OF(PAIR(OR_NIL(INT))), high_bid: OR_NIL(INT), pitcher: OR_NIL(INT),
  trump: OR_NIL((v) => ["C", "D", "H", "S"].includes(v)), trick: ARR_OF(PAIR(CARD)),
  tricks: ARR_OF(MAP), tricks_won: ARR_OF(INT), scores: ARR_OF(INT),
  legal_bids: ARR_OF(OR_NIL(INT)), legal_plays: ARR_OF(CARD), play_rule: OR_NIL(STR),
  step: INT, last_result: OR_NIL(MAP), winner: OR_NIL(INT), rules: MAP,
  score_history: ARR_OF(ARR_OF(INT)), spectator: BOOL,
};
const RESULT = {
  pitcher: OR_NIL(INT), bid: OR_NIL(INT), trump: OR_NIL(STR), trick_winners: ARR_OF(INT),
  high: OR_NIL(INT), low: OR_NIL(INT), jack: OR_NIL(INT), game: OR_NIL(INT),
  game_points: ARR_OF(INT), earned: ARR_OF(INT), made: BOOL, scores_before: ARR_OF(INT),
  scores: ARR_OF(INT), winner: OR_NIL(INT), high_card: OR_NIL(CARD), low_card: OR_NIL(CARD),
  joker: OR_NIL(INT), smudge: BOOL, redeal: BOOL,
};
const TRICK = { leader: INT, plays: ARR_OF(PAIR(CARD)), winner: INT };
const RULES = {
  low: STR, dealer_steal: STR, all_pass: STR, min_bid: INT, follow: STR, smudge: STR, joker: STR,
};
// Section 6: each event kind and its other keys. A kind not listed is a change to the wire.
const EVENTS = {
  join: { seat: INT, name: STR },
  leave: { seat: INT },
  connected: { seat: INT },
  disconnected: { seat: INT },
  substitute: { seat: INT },
  timed_out: { seat: INT },
  claim: { seat: INT, name: STR },
  takeover: { seat: INT, name: STR, was: STR },
  move: { seat: INT, frm: INT },
  deal: { hand: INT, dealer: INT },
  bid: { seat: INT, bid: OR_NIL(INT) },
  play: { seat: INT, card: CARD },
  trick: { winner: INT, cards: ARR_OF(PAIR(CARD)) },
  hand: RESULT,
  match: { winner: INT },
  ready: { seat: INT },
  rotate: { order: ARR_OF(INT) },
};
const PHASES = ["bidding", "playing", "hand_over", "match_over"];
const TABLE_STATES = ["lobby", "playing", "over"];
const KINDS = ["empty", "human", "bot"];

function check(fields, obj, where, problems, optional = new Set()) {
  for (const [name, ok] of Object.entries(fields)) {
    if (!(name in obj)) {
      if (!optional.has(`${where}.${name}`)) problems.push(`${where}.${name} missing`);
    } else if (!ok(obj[name])) {
      problems.push(`${where}.${name} has the wrong type: ${JSON.stringify(plain(obj[name]))}`);
    }
  }
}

function checkMessage(msg, problems) {
  const type = msg.type;
  if (typeof type !== "string") return problems.push("a frame without a str type");
  if (SCHEMA[type]) check(SCHEMA[type], msg, type, problems, OPTIONAL);
  if (type !== "state") return;
  for (const e of msg.events ?? []) {
    if (!EVENTS[e.kind]) problems.push(`an event of unknown kind ${JSON.stringify(e.kind)}`);
    else check(EVENTS[e.kind], e, `event ${e.kind}`, problems);
  }
  const t = msg.table;
  if (MAP(t)) {
    check(TABLE, t, "table", problems);
    if (MAP(t.rules) && Object.keys(t.rules).length) check(RULES, t.rules, "table.rules", problems);
    if (!TABLE_STATES.includes(t.state)) problems.push(`table.state ${t.state}`);
    for (const seat of t.seats ?? []) {
      check(SEAT, seat, "table.seats[]", problems);
      if (!KINDS.includes(seat.kind)) problems.push(`seat kind ${seat.kind}`);
    }
  }
  const v = msg.view;
  if (MAP(v)) {
    check(VIEW, v, "view", problems);
    if (!PHASES.includes(v.phase)) problems.push(`view.phase ${v.phase}`);
    if (MAP(v.last_result)) check(RESULT, v.last_result, "view.last_result", problems);
    for (const trick of ARR(v.tricks) ? v.tricks : []) check(TRICK, trick, "view.tricks[]", problems);
    if (v.spectator && (v.hand.length || v.legal_bids.length || v.legal_plays.length)) {
      problems.push("a no-hand view with cards or legal moves in it");
    }
  }
}

// ---------- the player ----------

function parseArgs(argv) {
  const opts = { name: "Node", seed: 1, spectator: false, reconnectAfter: 0, deadline: 150 };
  const rest = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--name") opts.name = argv[++i];
    else if (a === "--seed") opts.seed = Number(argv[++i]);
    else if (a === "--spectator") opts.spectator = true;
    else if (a === "--reconnect-after") opts.reconnectAfter = Number(argv[++i]);
    else if (a === "--deadline") opts.deadline = Number(argv[++i]);
    else if (a === "--lang") i++; // codes are shown raw: nothing to word
    else rest.push(a);
  }
  if (rest.length !== 1) throw new Error("usage: pitch.mjs HOST:PORT [options]");
  const [host, port] = rest[0].split(":");
  if (host !== "127.0.0.1") throw new Error("this test client connects to 127.0.0.1 only");
  opts.host = host;
  opts.port = Number(port);
  return opts;
}

/** mulberry32: a small seeded PRNG, so a run's choices can be replayed. */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

class Client {
  constructor(opts) {
    this.opts = opts;
    this.random = prng(opts.seed);
    this.token = null;
    this.seat = null;
    this.seats = []; // the seat of every welcome, in order
    this.nextId = 1;
    this.pending = null; // the action sent and not yet answered
    this.acted = new Set(); // turns (hand:step) and readies (ready:hand) already answered
    this.lastSeq = -1;
    this.seen = null;
    this.view = null;
    this.table = null;
    this.actions = 0;
    this.reconnects = 0;
    this.droppedAt = null;
    this.errors = [];
    this.problems = [];
    this.events = {};
    this.topLegalBid = null;
    this.lowLegalBid = null;
    this.jokerSeen = false;
    this.byes = [];
  }

  summary(outcome) {
    const v = this.view;
    return {
      outcome,
      role: this.opts.spectator ? "spectator" : "player",
      name: this.table && this.seat !== null && !this.opts.spectator
        ? this.table.seats[this.seat].name : this.opts.name,
      seats: this.seats,
      hands: v ? v.hand_number : 0,
      scores: v ? v.scores : null,
      winner: v ? v.winner : null,
      phase: v ? v.phase : null,
      rules: v ? v.rules : null,
      actions: this.actions,
      reconnects: this.reconnects,
      dropped_at: this.droppedAt,
      resent: this.resent ?? null,
      errors: this.errors,
      byes: this.byes,
      events: this.events,
      top_legal_bid: this.topLegalBid,
      low_legal_bid: this.lowLegalBid ?? null,
      joker_seen: this.jokerSeen,
      problems: this.problems,
    };
  }

  finish(code, outcome) {
    if (this.finished) return;
    this.finished = true;
    clearInterval(this.watchdog);
    clearTimeout(this.deadlineTimer);
    if (this.sock) this.sock.destroy();
    process.stdout.write(JSON.stringify(this.summary(outcome)) + "\n");
    process.exitCode = code;
  }

  run() {
    this.deadlineTimer = setTimeout(() => this.finish(4, "deadline"), this.opts.deadline * 1000);
    this.connect();
    // Section 11: 3 s without any frame from the host is a dead connection: reconnect.
    this.watchdog = setInterval(() => {
      if (this.sock && Date.now() - this.lastHeard > 3000) this.drop("silence");
    }, 250);
  }

  connect() {
    this.framer = new Framer();
    this.lastHeard = Date.now();
    this.welcomed = false;
    this.myNonce = crypto.randomBytes(16).toString("hex");
    const sock = net.connect({ host: this.opts.host, port: this.opts.port });
    this.sock = sock;
    sock.on("data", (chunk) => {
      if (sock !== this.sock) return;
      this.lastHeard = Date.now();
      let frames;
      try {
        frames = this.framer.feed(chunk);
      } catch (err) {
        this.problems.push(`bad frame from the host: ${err.message}`);
        return this.finish(2, "bad_frame");
      }
      for (const msg of frames) {
        if (this.finished || sock !== this.sock) return;
        this.receive(msg);
      }
    });
    sock.on("error", () => {});
    sock.on("close", () => {
      if (sock !== this.sock || this.finished) return;
      this.sock = null;
      if (this.token !== null && !this.opts.spectator) {
        this.reconnectSoon("closed by the host");
      } else {
        this.finish(5, "connection closed");
      }
    });
  }

  /** Drop the connection on purpose and come back with the seat token. */
  drop(why) {
    const sock = this.sock;
    this.sock = null;
    if (sock) sock.destroy();
    if (this.opts.spectator || this.token === null) return this.finish(5, why);
    this.reconnectSoon(why);
  }

  reconnectSoon(why) {
    this.reconnects += 1;
    if (this.reconnects > 10) return this.finish(5, `gave up reconnecting (${why})`);
    setTimeout(() => this.connect(), this.reconnects > 1 ? 200 : 0);
  }

  send(msg) {
    if (this.sock) this.sock.write(frame(msg));
  }

  receive(raw) {
    checkMessage(raw, this.problems);
    if (this.problems.length) return this.finish(2, "schema");
    const msg = plain(raw);
    switch (msg.type) {
      case "challenge":
        return this.hello(msg);
      case "ping":
        return this.send({ type: "pong", t: raw.t }); // F64 kept: echoed exactly
      case "welcome":
        return this.welcome(msg);
      case "state":
        return this.state(msg);
      case "ack":
        return this.ack(msg);
      case "error":
        return this.error(msg);
      case "bye":
        this.byes.push(msg.code);
        return this.finish(5, `bye ${msg.code}`);
      default:
        return; // pong, reacted, reclaim_*: nothing to do for this client
    }
  }

  hello(challenge) {
    if (challenge.version !== 3) return this.finish(5, `protocol ${challenge.version}`);
    this.challenge = challenge;
    const hello = { type: "hello", version: 3, name: this.opts.name, table_id: challenge.table_id };
    if (this.opts.spectator) {
      hello.watch = true;
    } else if (this.token !== null) {
      hello.seat_proof = proof(this.token, challenge.nonce, challenge.table_id, "seat");
      hello.challenge = this.myNonce;
      hello.seen = this.seen;
    }
    this.send(hello);
  }

  welcome(msg) {
    const fresh = !this.welcomed; // the first welcome on this connection
    if (msg.table_id !== this.challenge.table_id) {
      this.problems.push("welcome.table_id is not the challenge's");
      return this.finish(2, "schema");
    }
    if (this.token !== null && fresh && !this.opts.spectator) {
      const want = proof(this.token, this.myNonce, msg.table_id, "host");
      if (msg.proof !== want) return this.finish(3, "the host could not prove the seat's token");
    }
    if (msg.token) this.token = msg.token;
    this.welcomed = true;
    this.seat = msg.seat;
    this.seats.push(msg.seat);
    this.nextId = Math.max(this.nextId, (msg.last_id ?? 0) + 1);
    this.lastSeq = -1; // section 6: reset on every welcome
    // An action whose ack died with the old link is resent under the same id (section 8):
    // applied already, it is acked `duplicate` and changes nothing.
    if (fresh && this.pending && !this.opts.spectator) {
      this.resent = { id: this.pending.id, last_id: msg.last_id ?? 0, duplicate: null };
      this.send(this.pending.msg);
    }
  }

  state(msg) {
    if (msg.seq <= this.lastSeq) return;
    this.lastSeq = msg.seq;
    this.table = msg.table;
    for (const e of msg.events) this.events[e.kind] = (this.events[e.kind] ?? 0) + 1;
    const v = msg.view;
    if (!v) return;
    this.view = v;
    const over = v.phase === "hand_over" || v.phase === "match_over" ? 1 : 0;
    this.seen = [msg.table.match, v.hand_number, over, v.step];
    if (v.hand.includes("JK") || v.trick.some(([, c]) => c === "JK")) this.jokerSeen = true;
    if (v.phase === "match_over") return this.finish(0, "match_over");
    this.act();
  }

  act() {
    const v = this.view;
    if (this.opts.spectator || this.pending || !v || v.spectator || !this.sock) return;
    if (v.phase === "hand_over") {
      const key = `ready:${this.table.match}:${v.hand_number}`;
      if (!this.acted.has(key)) this.action({ type: "ready" }, key);
      return;
    }
    if (v.turn !== v.seat) return;
    const key = `${this.table.match}:${v.hand_number}:${v.step}`;
    if (this.acted.has(key)) return;
    if (v.phase === "bidding" && v.legal_bids.length) {
      const amounts = v.legal_bids.filter((b) => b !== null);
      if (amounts.length) {
        this.topLegalBid = Math.max(this.topLegalBid ?? 0, ...amounts);
        this.lowLegalBid = Math.min(this.lowLegalBid ?? amounts[0], ...amounts);
      }
      const bid = v.legal_bids[Math.floor(this.random() * v.legal_bids.length)];
      this.action({ type: "bid", bid, hand: v.hand_number, step: v.step }, key);
    } else if (v.phase === "playing" && v.legal_plays.length) {
      const card = v.legal_plays[Math.floor(this.random() * v.legal_plays.length)];
      this.action({ type: "play", card, hand: v.hand_number, step: v.step }, key);
    }
  }

  action(msg, key) {
    const id = this.nextId++;
    this.pending = { id, key, msg: { ...msg, id } };
    this.send(this.pending.msg);
    this.actions += 1;
    if (this.opts.reconnectAfter && this.actions === this.opts.reconnectAfter) {
      // The link dies with the action on its way and its ack unseen: the action is
      // resent after the reconnect under the same id (section 8), and must not be
      // applied twice. Half-close, so the frame reaches the host before the FIN.
      const v = this.view;
      this.droppedAt = { phase: v.phase, hand: v.hand_number, step: v.step, seat: this.seat, id };
      const sock = this.sock;
      this.sock = null;
      sock.end();
      this.reconnectSoon("on purpose");
    }
  }

  ack(msg) {
    if (this.resent && msg.id === this.resent.id) this.resent.duplicate = msg.duplicate;
    if (!this.pending || msg.id !== this.pending.id) return;
    this.acted.add(this.pending.key);
    this.pending = null;
    this.act(); // the state that follows the ack may already be here
  }

  error(msg) {
    this.errors.push(msg.code);
    if (msg.fatal) return this.finish(5, `error ${msg.code}`);
    if (this.pending && msg.id === this.pending.id) {
      // Refused: nothing changed. Decide again from the latest view (not the same turn).
      this.acted.add(this.pending.key);
      this.pending = null;
      this.act();
    }
  }
}

/** `--selftest`: the codec and the proof against what PROTOCOL.md documents. Reads
 * {"host_bytes": hex of host frames, "secret", "nonce", "table_id"} on stdin; prints the
 * decoded frames, the documented newcomer's `hello` as this encoder packs it, and a proof. */
async function selftest() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  const input = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  const raw = new Framer().feed(Buffer.from(input.host_bytes, "hex"));
  const hello = {
    type: "hello", version: 3, name: "Ann", table_id: null, seat_proof: null,
    password_proof: null, challenge: null, watch: false, seen: null, seat_key: null,
  };
  process.stdout.write(JSON.stringify({
    frames: raw.map(plain),
    floats: raw.map((m) => Object.keys(m).filter((k) => m[k] instanceof F64)),
    hello: frame(hello).toString("hex"),
    proof: proof(input.secret, input.nonce, input.table_id, "seat"),
  }) + "\n");
}

function main() {
  if (process.argv[2] === "--selftest") return selftest();
  let opts;
  try {
    opts = parseArgs(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`${err.message}\n`);
    process.exitCode = 1;
    return;
  }
  new Client(opts).run();
}

main();
