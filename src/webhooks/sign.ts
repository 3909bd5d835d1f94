import { createHmac } from 'node:crypto';

/** The header carrying a delivery's signature. */
export const SIGNATURE_HEADER = 'x-vitrine-signature';

/**
 * The `X-Vitrine-Signature` value of a body: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`. The time is
 * signed too, so a receiver can refuse old deliveries replayed at it.
 */
export function signatureHeader(secret: string, body: string, unixSeconds: number): string {
  const mac = createHmac('sha256', secret).update(`${unixSeconds}.${body}`, 'utf8').digest('hex');
  return `t=${unixSeconds},v1=${mac}`;
}
