// The WebCrypto globals that @peculiar/x509's typings name, taken from Node's own types, so the
// project need not pull in the whole DOM lib.
import type { webcrypto } from 'node:crypto';

declare global {
  type Crypto = webcrypto.Crypto;
  type CryptoKey = webcrypto.CryptoKey;
  type CryptoKeyPair = webcrypto.CryptoKeyPair;
}
