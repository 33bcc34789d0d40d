import { hash as digest, randomBytes } from 'node:crypto';
import { hash, verify } from '@node-rs/argon2';

// Session and token secrets: 256 random bits; only their SHA-256 is stored, so a leaked database
// reveals no usable credential. A high-entropy secret needs no slow hash.
export function newSecret(prefix: string): string {
  return `${prefix}${randomBytes(32).toString('base64url')}`;
}

// Runs on every authenticated request: the one-shot crypto.hash (Node >= 20.12) costs less than a
// Hash object.
export function hashSecret(secret: string): string {
  return digest('sha256', secret, 'hex');
}

// argon2id (the library's default algorithm) with OWASP's recommended minimum cost.
const passwordOptions = { memoryCost: 19_456, timeCost: 2, parallelism: 1 };

export function hashPassword(password: string): Promise<string> {
  return hash(password, passwordOptions);
}

// A login for an unknown email still verifies against this hash, so both failures cost the same.
let dummyHash: Promise<string> | undefined;

export async function verifyPassword(passwordHash: string | undefined, password: string): Promise<boolean> {
  if (passwordHash === undefined) {
    dummyHash ??= hashPassword('loreforge-timing-equaliser');
    await verify(await dummyHash, password).catch(() => false);
    return false;
  }
  return verify(passwordHash, password).catch(() => false);
}
