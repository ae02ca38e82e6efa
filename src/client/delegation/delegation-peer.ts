/**
 * What a delegation needs of a client. `A2AClient` fits it as it is; it is spelled out here (rather than picked
 * from the class) so the delegation folder sits beside `sends` and `streams` without importing the top of the
 * client (ADR 0033).
 */
import type { Message, SendMessageResponse, Task } from '../../protocol/model.js';
import type { CallOptions } from '../connection/call-options.js';
import type { SendOptions } from '../sends/send-options.js';

/** The parts of `A2AClient` a delegation uses. */
export interface DelegationPeer {
  readonly peerHonoursKeys: boolean;
  send(message: Message, options: SendOptions): Promise<SendMessageResponse>;
  getTask(id: string, options?: CallOptions): Promise<Task>;
  cancelTask(id: string): Promise<Task>;
}
