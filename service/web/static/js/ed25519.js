// The Ed25519 checks WebCrypto does not make: is a public key a canonical encoding of a curve
// point of large order, and is a signature's R not of small order? The server and `portolan
// verify` verify strictly (libsodium: service/proof/signing.py); Chromium's Ed25519 (BoringSSL)
// rejects a non-canonical S but accepts small-order keys, under which a fixed degenerate
// signature verifies for every message. So the browser verifier applies these rules itself,
// with BigInt arithmetic on the curve (RFC 8032 §5.1), before it asks WebCrypto.

const P = 2n ** 255n - 19n;
const L = 2n ** 252n + 27742317777372353535851937790883648493n;  // the prime group order

function mod(a) {
  const r = a % P;
  return r < 0n ? r + P : r;
}

function pow(base, exp) {
  let result = 1n;
  let b = mod(base);
  let e = exp;
  while (e > 0n) {
    if (e & 1n) result = (result * b) % P;
    b = (b * b) % P;
    e >>= 1n;
  }
  return result;
}

const D = mod(-121665n * pow(121666n, P - 2n));
const D2 = mod(2n * D);
const SQRT_M1 = pow(2n, (P - 1n) / 4n);

// Decode 32 bytes to an extended point [X, Y, Z, T], or null when they are not a canonical
// encoding of a point on the curve.
function decode(bytes) {
  if (!(bytes instanceof Uint8Array) || bytes.length !== 32) return null;
  let y = 0n;
  for (let i = 31; i >= 0; i--) y = (y << 8n) | BigInt(bytes[i]);
  const sign = y >> 255n;
  y &= (1n << 255n) - 1n;
  if (y >= P) return null;  // non-canonical y
  const yy = (y * y) % P;
  const u = mod(yy - 1n);
  const v = mod(D * yy + 1n);
  const v3 = (v * v % P) * v % P;
  let x = (u * v3 % P) * pow(u * (v3 * v3 % P) % P * v % P, (P - 5n) / 8n) % P;
  const vxx = v * (x * x % P) % P;
  if (vxx === u) {
    // x is a root
  } else if (vxx === mod(-u)) {
    x = x * SQRT_M1 % P;
  } else {
    return null;  // not on the curve
  }
  if (x === 0n && sign === 1n) return null;  // "-0": non-canonical
  if ((x & 1n) !== sign) x = P - x;
  return [x, y, 1n, x * y % P];
}

function add(p, q) {
  const [x1, y1, z1, t1] = p;
  const [x2, y2, z2, t2] = q;
  const a = mod((y1 - x1) * (y2 - x2));
  const b = mod((y1 + x1) * (y2 + x2));
  const c = mod(t1 * D2 % P * t2);
  const d = mod(2n * z1 * z2);
  const e = mod(b - a);
  const f = mod(d - c);
  const g = mod(d + c);
  const h = mod(b + a);
  return [e * f % P, g * h % P, f * g % P, e * h % P];
}

function times(point, scalar) {
  let result = [0n, 1n, 1n, 0n];
  let addend = point;
  let k = scalar;
  while (k > 0n) {
    if (k & 1n) result = add(result, addend);
    addend = add(addend, addend);
    k >>= 1n;
  }
  return result;
}

function isIdentity([x, y, z]) {
  return x === 0n && mod(y - z) === 0n;
}

/** Is `bytes` a valid Ed25519 public key as libsodium's crypto_core_ed25519_is_valid_point has
 * it: canonical, on the curve, in the prime-order subgroup and not the identity? */
export function validPublicKey(bytes) {
  const point = decode(bytes);
  if (point === null || isIdentity(point)) return false;
  return isIdentity(times(point, L));
}

/** Is the R half of a 64-byte signature a point of small order (order dividing 8)? Such an R
 * is refused by strict verification whatever the key. An R that is not a point at all is left
 * to WebCrypto, which refuses it. */
export function smallOrderR(signature) {
  const point = decode(signature.subarray(0, 32));
  return point !== null && isIdentity(times(point, 8n));
}
