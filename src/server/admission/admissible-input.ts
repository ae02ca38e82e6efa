/**
 * The first admission check: what the caller sent to be kept (the message, and a push config sent inline with
 * it) is plain JSON data within the wire's nesting limit, so its digest and every store's serialisation of it
 * cannot fail later. The memory store defers a key's digest until a retry needs it (ADR 0023); without this
 * check a value the digest cannot write would surface only then, after the agent ran, and a value no writer can
 * handle would make every read of the scope fail (docs/semantics.md §2 "Input refused at the door", ADR 0031).
 * Its names (ids, metadata keys) and the tenant must be text every store can hold (ADR 0059): the bindings check
 * the rest of a request's names as they parse it, but in-process sends reach admission unparsed.
 */
import { InvalidParamsError } from '../../protocol/errors.js';
import { MAX_JSON_DEPTH } from '../../protocol/json-depth.js';
import { findNonJson } from '../../protocol/json-value.js';
import { formatPath } from '../../protocol/parse.js';
import type { Message } from '../../protocol/model.js';
import type { TaskPushNotificationConfig } from '../../protocol/requests.js';
import {
  findUnstorableInMessage,
  findUnstorableParam,
  unstorableTextError,
  unstorableTextProblem,
} from '../../protocol/storable-text.js';

/** Path segments shown in a refusal; a cycle's path is endless. */
const SHOWN_SEGMENTS = 8;

/**
 * Throws `InvalidParamsError` (-32602) naming the first place in `value` that is not plain JSON data; `field` is
 * where `value` sits in the request (`message`, `configuration.taskPushNotificationConfig`).
 */
export function assertPlainJson(value: unknown, field: string): void {
  const bad = findNonJson(value, MAX_JSON_DEPTH);
  if (!bad) return;
  const cut = bad.path.length > SHOWN_SEGMENTS;
  const where = formatPath([...field.split('.'), ...bad.path.slice(0, SHOWN_SEGMENTS)]) + (cut ? '…' : '');
  throw new InvalidParamsError({
    message: `Invalid parameters: ${where}: ${bad.problem}`,
    metadata: { fields: where },
  });
}

/**
 * Throws `InvalidParamsError` naming the first name of a send that no task store can hold (U+0000, an unpaired
 * surrogate; ADR 0059): the message's ids and metadata keys, the tenant, an inline push config's ids. Call after
 * `assertPlainJson`, which bounds the walk.
 */
export function assertStorableSend(
  message: Message,
  tenant: string,
  inlinePushConfig: TaskPushNotificationConfig | undefined,
): void {
  const bad =
    findUnstorableInMessage(message, 'message') ??
    (inlinePushConfig === undefined
      ? undefined
      : findUnstorableParam({ configuration: { taskPushNotificationConfig: inlinePushConfig } }));
  if (bad) throw unstorableTextError(bad);
  const problem = unstorableTextProblem(tenant);
  if (problem !== undefined) throw unstorableTextError({ field: 'tenant', problem });
}
