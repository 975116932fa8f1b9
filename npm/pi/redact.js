// The redaction of a request body saved beside a redacted case: the home path, the user name and
// the host name (whole words), and anything shaped like a key, as `ctxlens export --redact`
// replaces them in the case's files (the stand-ins here are plain words: the body is read, not
// rebuilt from).
import os from "node:os";

/** Names too common to replace as words (`export --redact` leaves them too, and says so). */
const COMMON = new Set(["root", "user", "admin", "ubuntu", "node", "pi", "test", "dev", "home", "runner", "host", "localhost"]);

/** Shapes of provider keys, JSON Web Tokens and Bearer tokens. */
const KEY_SHAPES = [
  /\bsk-[A-Za-z0-9_-]{16,}/g,
  /\bAKIA[0-9A-Z]{16}\b/g,
  /\bghp_[A-Za-z0-9]{20,}/g,
  /\bgithub_pat_[A-Za-z0-9_]{20,}/g,
  /\bAIza[0-9A-Za-z_-]{30,}/g,
  /\bxox[abposr]-[A-Za-z0-9-]{10,}/g,
  /\bglpat-[A-Za-z0-9_-]{16,}/g,
  /\bhf_[A-Za-z0-9]{20,}/g,
  /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*/g,
  /\bBearer\s+[A-Za-z0-9._~+/=-]{16,}/g,
];

function escape(s) {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Who this machine's files belong to: the home path, the user name, the host name. */
export function identity() {
  let user = "";
  try {
    user = os.userInfo().username;
  } catch {
    user = process.env.USER ?? "";
  }
  return { home: os.homedir(), user, host: os.hostname() };
}

/**
 * `text` with the home path (by `who.homeAs`, the stand-in a redacted case used, else
 * /home/user), the user and host names and key-shaped strings replaced.
 */
export function redactText(text, who = identity()) {
  let out = text;
  if (who.home && who.home !== "/") out = out.split(who.home).join(who.homeAs ?? "/home/user");
  // The host first: a host name often holds the user's.
  for (const [name, stand] of [
    [who.host, "host"],
    [who.user, "user"],
  ]) {
    if (name && name.length > 2 && !COMMON.has(name.toLowerCase())) out = out.replace(new RegExp(`(?<![A-Za-z0-9_])${escape(name)}(?![A-Za-z0-9_])`, "g"), stand);
  }
  for (const shape of KEY_SHAPES) out = out.replace(shape, "<redacted>");
  return out;
}
