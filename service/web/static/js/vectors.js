// Checks the published signing test vectors (docs/signing-vectors.json) with this client's own
// code: JCS via the vendored canonicalize, the signed-request bytes via api.signedRequestBody, and
// Ed25519 via WebCrypto. The browser tests call checkVectors() with the JSON file's contents.

import { authorization, canonicalBytes, signedRequestBody } from "./api.js";
import { fromHex, hex, utf8 } from "./b64.js";
import { importSeed, publicKeyOf, signWith } from "./keys.js";

/** [{name, ok, problems: [text]}] for each vector of {"vectors": [...]}. */
export async function checkVectors(file) {
  const results = [];
  for (const v of file.vectors) {
    const problems = [];
    const key = await importSeed(fromHex(v.private_key_seed_hex));
    if ((await publicKeyOf(key)) !== v.public_key) problems.push("public key differs");
    let message;
    if (v.kind === "raw") {
      message = fromHex(v.message_hex);
    } else if (v.kind === "request") {
      const r = v.request;
      message = await signedRequestBody(r.method, r.path, r.query, utf8(r.body_text), r.ts, r.nonce);
      const header = await authorization(r.method, r.path, r.query, utf8(r.body_text),
        { ts: r.ts, nonce: r.nonce, privateKey: key, publicKey: v.public_key });
      if (v.authorization && header !== v.authorization.replace(/^Authorization:\s*/, "")) {
        problems.push("Authorization header differs: " + header);
      }
    } else {
      message = canonicalBytes(v.object);
    }
    if (v.canonical_hex !== undefined && hex(message) !== v.canonical_hex) {
      problems.push("canonical bytes differ: " + new TextDecoder().decode(message));
    }
    const sig = await signWith(key, message);
    if (sig !== v.signature) problems.push("signature differs: " + sig);
    results.push({ name: v.name, ok: problems.length === 0, problems });
  }
  return results;
}
