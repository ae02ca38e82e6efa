// The @a2a-js/sdk 1.3.0 echo agent of the published baseline (bench/README.md), shared by its JSON-RPC and gRPC servers:
// the executor publishes a Task (submitted, user message in history), one artifact update with the input text,
// then a completed status update. `echoHandler(binding)` builds the DefaultRequestHandler on an InMemoryTaskStore.
import { randomUUID } from 'node:crypto';
import { TaskState } from '@a2a-js/sdk';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server';

export const card = {
  name: 'a2a-js echo',
  description: 'Echoes each message back as an artifact.',
  version: '1.0.0',
  // The URL is filled in once the port is known; only protocolVersion matters for version negotiation.
  supportedInterfaces: [
    { url: 'http://127.0.0.1/', protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' },
  ],
  provider: undefined,
  capabilities: { streaming: true, pushNotifications: false, extensions: [] },
  securitySchemes: {},
  securityRequirements: [],
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [
    {
      id: 'echo',
      name: 'Echo',
      description: 'Echoes the input.',
      tags: ['echo'],
      examples: [],
      inputModes: [],
      outputModes: [],
      securityRequirements: [],
    },
  ],
  signatures: [],
};

function inputText(message) {
  for (const p of message?.parts ?? []) if (p.content?.$case === 'text') return p.content.value;
  return '';
}

// No bus.finished(): 1.3.0 settles the bus itself when execute() returns (as in the facts' A12 sample).
export class Echo {
  async execute(ctx, bus) {
    const { taskId, contextId } = ctx;
    bus.publish(
      AgentEvent.task({
        id: taskId,
        contextId,
        status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: undefined },
        history: [ctx.userMessage],
        artifacts: [],
        metadata: {},
      }),
    );
    bus.publish(
      AgentEvent.artifactUpdate({
        taskId,
        contextId,
        artifact: {
          artifactId: randomUUID(),
          name: 'echo',
          description: '',
          parts: [
            {
              content: { $case: 'text', value: inputText(ctx.userMessage) },
              metadata: undefined,
              filename: '',
              mediaType: '',
            },
          ],
          metadata: undefined,
          extensions: [],
        },
        append: false,
        lastChunk: true,
        metadata: undefined,
      }),
    );
    bus.publish(
      AgentEvent.statusUpdate({
        taskId,
        contextId,
        status: { state: TaskState.TASK_STATE_COMPLETED, message: undefined, timestamp: undefined },
        metadata: undefined,
      }),
    );
  }
  async cancelTask(taskId, bus) {
    bus.publish(
      AgentEvent.statusUpdate({
        taskId,
        contextId: '',
        status: { state: TaskState.TASK_STATE_CANCELED },
        metadata: undefined,
      }),
    );
  }
}

/** The request handler of the echo agent, its card listing one interface of `binding`. */
export function echoHandler(binding) {
  card.supportedInterfaces[0].protocolBinding = binding;
  return new DefaultRequestHandler(card, new InMemoryTaskStore(), new Echo());
}
