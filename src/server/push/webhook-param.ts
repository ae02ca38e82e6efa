/**
 * The SSRF check of a push config's webhook URL when the config is created (ADR 0045), as the caller sees it: a
 * refused target is InvalidParams naming the `url` field and the address class that was refused. Without push
 * delivery configured there is nothing to check: nothing is ever sent.
 */
import { InvalidParamsError } from '../../protocol/errors.js';
import type { ResolvedPushOptions } from './push-options.js';
import { checkWebhookAtCreation, WebhookTargetError } from './webhook-url-guard.js';

/** Checks `url` as a webhook target of this server's push delivery. */
export async function checkWebhookParam(
  url: string,
  options: ResolvedPushOptions | undefined,
): Promise<void> {
  if (!options) return;
  try {
    await checkWebhookAtCreation(url, options.allowPrivateTargets, options.resolve);
  } catch (err) {
    if (!(err instanceof WebhookTargetError)) throw err;
    throw new InvalidParamsError({
      message: `Invalid parameters: url refused: ${err.message}`,
      metadata: { fields: 'url', ...(err.addressClass ? { addressClass: err.addressClass } : {}) },
    });
  }
}
