/**
 * The gRPC service of A2A v1.0 (A2A §10): `lf.a2a.v1.A2AService`, its eleven methods, which stream, and the
 * message types each takes and answers, as the `.proto` declares them.
 */
import type { A2AMethod } from '../constants.js';
import { A2A_PROTO_PACKAGE } from './proto-root.js';

/** The full name of the service. */
export const A2A_GRPC_SERVICE = `${A2A_PROTO_PACKAGE}.A2AService`;

/** The metadata keys of the service parameters over gRPC (A2A §10: lowercase, one comma-separated entry). */
export const GRPC_METADATA = {
  version: 'a2a-version',
  extensions: 'a2a-extensions',
  authorization: 'authorization',
  /** The trailer holding the binary `google.rpc.Status` with its details. */
  statusDetails: 'grpc-status-details-bin',
} as const;

/** How one method travels over gRPC. */
export interface GrpcMethodShape {
  /** `/lf.a2a.v1.A2AService/<Method>`. */
  readonly path: string;
  readonly requestType: string;
  readonly responseType: string;
  readonly serverStreaming: boolean;
}

const shape = (
  method: A2AMethod,
  requestType: string,
  responseType: string,
  serverStreaming = false,
): GrpcMethodShape => ({
  path: `/${A2A_GRPC_SERVICE}/${method}`,
  requestType,
  responseType,
  serverStreaming,
});

/** Every method of the service. */
export const GRPC_METHODS: { readonly [M in A2AMethod]: GrpcMethodShape } = {
  SendMessage: shape('SendMessage', 'SendMessageRequest', 'SendMessageResponse'),
  SendStreamingMessage: shape('SendStreamingMessage', 'SendMessageRequest', 'StreamResponse', true),
  GetTask: shape('GetTask', 'GetTaskRequest', 'Task'),
  ListTasks: shape('ListTasks', 'ListTasksRequest', 'ListTasksResponse'),
  CancelTask: shape('CancelTask', 'CancelTaskRequest', 'Task'),
  SubscribeToTask: shape('SubscribeToTask', 'SubscribeToTaskRequest', 'StreamResponse', true),
  CreateTaskPushNotificationConfig: shape(
    'CreateTaskPushNotificationConfig',
    'TaskPushNotificationConfig',
    'TaskPushNotificationConfig',
  ),
  GetTaskPushNotificationConfig: shape(
    'GetTaskPushNotificationConfig',
    'GetTaskPushNotificationConfigRequest',
    'TaskPushNotificationConfig',
  ),
  ListTaskPushNotificationConfigs: shape(
    'ListTaskPushNotificationConfigs',
    'ListTaskPushNotificationConfigsRequest',
    'ListTaskPushNotificationConfigsResponse',
  ),
  DeleteTaskPushNotificationConfig: shape(
    'DeleteTaskPushNotificationConfig',
    'DeleteTaskPushNotificationConfigRequest',
    'google.protobuf.Empty',
  ),
  GetExtendedAgentCard: shape('GetExtendedAgentCard', 'GetExtendedAgentCardRequest', 'AgentCard'),
};
