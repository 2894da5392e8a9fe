import { readFileSync } from 'node:fs';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { generateWebhookSecret, secretKeyBytes, signatureHeader, signPayload, verifySignature } from '../../src/webhooks/signer.js';
import { describeCorpus } from '../helpers/conformance.js';

// The published example of the Standard Webhooks reference libraries (standard-webhooks/standard-webhooks,
// libraries/javascript/src/webhook.test.ts "sign function works", and the same values in the Go,
// Python, PHP, Ruby, Java and C# suites). Kept here as a literal so this file covers it without the corpus.
const SPEC_EXAMPLE = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  msgId: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestampSeconds: 1614265330,
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};

describe('signPayload', () => {
  it('gives the published example signature', () => {
    expect(signPayload(SPEC_EXAMPLE)).toBe(SPEC_EXAMPLE.signature);
  });

  it('accepts the secret without its whsec_ prefix', () => {
    expect(signPayload({ ...SPEC_EXAMPLE, secret: SPEC_EXAMPLE.secret.slice('whsec_'.length) })).toBe(SPEC_EXAMPLE.signature);
  });

  it('changes with every signed part', () => {
    expect(signPayload({ ...SPEC_EXAMPLE, body: '{"test":2432232314}' })).not.toBe(SPEC_EXAMPLE.signature);
    expect(signPayload({ ...SPEC_EXAMPLE, msgId: 'msg_other' })).not.toBe(SPEC_EXAMPLE.signature);
    expect(signPayload({ ...SPEC_EXAMPLE, timestampSeconds: SPEC_EXAMPLE.timestampSeconds + 1 })).not.toBe(SPEC_EXAMPLE.signature);
  });

  it('refuses a secret that decodes to nothing', () => {
    expect(() => secretKeyBytes('whsec_')).toThrow(/empty/);
  });
});

describe('signatureHeader', () => {
  it('lists one v1 entry per secret, new first, space-separated', () => {
    const old = generateWebhookSecret();
    const header = signatureHeader(SPEC_EXAMPLE.msgId, SPEC_EXAMPLE.timestampSeconds, SPEC_EXAMPLE.body, [SPEC_EXAMPLE.secret, old]);
    const entries = header.split(' ');
    expect(entries).toHaveLength(2);
    expect(entries[0]).toBe(SPEC_EXAMPLE.signature);
    expect(entries[1]).toBe(signPayload({ ...SPEC_EXAMPLE, secret: old }));
  });

  it('refuses to sign with no secret', () => {
    expect(() => signatureHeader('msg_1', 1, '{}', [])).toThrow();
  });
});

describe('generateWebhookSecret', () => {
  it('is whsec_ + base64 of 24 random bytes', () => {
    const a = generateWebhookSecret();
    const b = generateWebhookSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(secretKeyBytes(a)).toHaveLength(24);
    expect(a).not.toBe(b);
  });
});

describe('round trip with the standardwebhooks package', () => {
  it('verifies what we sign, including a rotation header, and rejects a changed body', () => {
    const secret = generateWebhookSecret();
    const old = generateWebhookSecret();
    const msgId = 'msg_roundtrip';
    const timestampSeconds = Math.floor(Date.now() / 1000);
    const body = JSON.stringify({ event: 'webhook.test', endpoint_id: 'ep_1', timestamp: new Date().toISOString(), note: 'ünïcödé' });
    const headers = {
      'webhook-id': msgId,
      'webhook-timestamp': String(timestampSeconds),
      'webhook-signature': signatureHeader(msgId, timestampSeconds, body, [secret, old]),
    };
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(new Webhook(old).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(generateWebhookSecret()).verify(body, headers)).toThrow();
    expect(() => new Webhook(secret).verify(body.replace('ep_1', 'ep_2'), headers)).toThrow();
    expect(verifySignature({ msgId, timestamp: String(timestampSeconds), body, signatureHeader: headers['webhook-signature'], secret: old, nowSeconds: timestampSeconds })).toBe(true);
  });
});

interface SignVector {
  id: string;
  secret: string;
  msg_id: string;
  timestamp: number;
  payload?: string;
  payload_repeat?: { char: string; count: number };
  expected_signature: string;
}
interface VerifyCase {
  id: string;
  base: string;
  now: number;
  signature_header: string | null;
  expect: 'valid' | 'invalid';
  secret_override?: string;
  payload_override?: string;
  msg_id_override?: string;
  timestamp_header_override?: string;
}

describeCorpus('Standard Webhooks vectors from the conformance corpus', ['webhooks', 'standard-webhooks-vectors.json'], (path) => {
  const file = JSON.parse(readFileSync(path, 'utf8')) as {
    sign_vectors: SignVector[];
    verify_cases: VerifyCase[];
  };
  const payloadOf = (vector: SignVector): string => vector.payload ?? vector.payload_repeat!.char.repeat(vector.payload_repeat!.count);
  const byId = new Map(file.sign_vectors.map((vector) => [vector.id, vector]));

  it('holds sign vectors and verify cases', () => {
    expect(file.sign_vectors.length).toBeGreaterThan(0);
    expect(file.verify_cases.length).toBeGreaterThan(0);
  });

  for (const vector of file.sign_vectors) {
    it(`signs ${vector.id}`, () => {
      const body = payloadOf(vector);
      expect(signPayload({ msgId: vector.msg_id, timestampSeconds: Number(vector.timestamp), body, secret: vector.secret })).toBe(vector.expected_signature);
    });
  }

  for (const testCase of file.verify_cases) {
    it(`verify case ${testCase.id} is ${testCase.expect}`, () => {
      const base = byId.get(testCase.base)!;
      const valid =
        testCase.signature_header !== null &&
        verifySignature({
          msgId: testCase.msg_id_override ?? base.msg_id,
          timestamp: testCase.timestamp_header_override ?? String(base.timestamp),
          body: testCase.payload_override ?? payloadOf(base),
          signatureHeader: testCase.signature_header,
          secret: testCase.secret_override ?? base.secret,
          nowSeconds: Number(testCase.now),
        });
      expect(valid).toBe(testCase.expect === 'valid');
    });
  }
});
