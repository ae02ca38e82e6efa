/**
 * How the agent admitted a send, when it says (an a2a-once server's `A2A-Once-Admission` header, ADR 0086): the
 * caller's `onAdmission` hears it for each answered attempt. Only what the header names is reported; a peer that
 * does not send it (any other A2A server) is never called `replayed` or `created` by guesswork.
 */
import { HEADER_ADMISSION } from '../../protocol/constants.js';
import type { AdmissionOutcome } from '../../protocol/constants.js';
import type { ClientLogger } from './client-logger.js';

const OUTCOMES: ReadonlySet<string> = new Set<AdmissionOutcome>(['created', 'continued', 'replayed']);

/**
 * The headers listener for a send with `onAdmission`, or undefined without one. A listener that throws is
 * logged, never thrown into the attempt: the send's answer has arrived and must not become a transport failure.
 */
export function admissionListener(
  onAdmission: ((admission: AdmissionOutcome) => void) | undefined,
  logger: ClientLogger,
): ((headers: Headers) => void) | undefined {
  if (onAdmission === undefined) return undefined;
  return (headers) => {
    const value = headers.get(HEADER_ADMISSION)?.trim().toLowerCase();
    if (value === undefined || !OUTCOMES.has(value)) return;
    try {
      onAdmission(value as AdmissionOutcome);
    } catch (err) {
      logger.error('onAdmission threw; the send goes on', { error: err });
    }
  };
}
