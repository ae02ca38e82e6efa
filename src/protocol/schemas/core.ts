/**
 * Schemas of the A2A v1.0 core objects (A2A v1.0) and of the two result oneofs (A2A v1.0). Each is
 * tied to its hand-written type in `model.ts` by `type-ties.ts`.
 */
import { z } from 'zod';
import { oneOfSchema, wireObject } from './lenient.js';
import {
  JsonObjectSchema,
  RoleSchema,
  TaskStateSchema,
  nonEmptyString,
  stringArray,
  wireBase64,
  wireBool,
  wireTimestamp,
} from './scalars.js';

/** Fields every Part variant may carry (`PartBase`). */
const partBaseShape = {
  metadata: JsonObjectSchema.optional(),
  filename: z.string().optional(),
  mediaType: z.string().optional(),
};

/** `PartBase`: the fields shared by every Part variant. */
export const PartBaseSchema = wireObject(partBaseShape);

/** `TextPart`. */
export const TextPartSchema = wireObject({ text: z.string(), ...partBaseShape });

/** `RawPart`: `raw` read in either base64 alphabet, normalised to standard with padding (A2A v1.0). */
export const RawPartSchema = wireObject({ raw: wireBase64, ...partBaseShape });

/** `UrlPart`. */
export const UrlPartSchema = wireObject({ url: z.string(), ...partBaseShape });

/** `DataPart`: `data` is any JSON value (`google.protobuf.Value`), so `null` is a value here, not "absent". */
export const DataPartSchema = wireObject({ data: z.unknown(), ...partBaseShape }, ['data']);

/** `Part`: a oneof, exactly one of `text`, `raw`, `url`, `data` (A2A v1.0). */
export const PartSchema = oneOfSchema(
  'a part',
  { text: TextPartSchema, raw: RawPartSchema, url: UrlPartSchema, data: DataPartSchema },
  ['data'],
);

/** The parts of a Message or Artifact: REQUIRED, so at least one (A2A v1.0, SPEC §5.7). */
const partsSchema = z.array(PartSchema).min(1, 'at least one part is required');

/**
 * `Message`. `messageId` and at least one part are REQUIRED; `role` is REQUIRED, so `ROLE_UNSPECIFIED` (the
 * proto default, meaning "not set") is refused (A2A v1.0).
 */
export const MessageSchema = wireObject({
  messageId: nonEmptyString,
  contextId: z.string().optional(),
  taskId: z.string().optional(),
  // An explicit `boolean` keeps the output type `Role` (an inferred type predicate would narrow it).
  role: RoleSchema.refine((role): boolean => role !== 'ROLE_UNSPECIFIED', 'must be ROLE_USER or ROLE_AGENT'),
  parts: partsSchema,
  metadata: JsonObjectSchema.optional(),
  extensions: stringArray.optional(),
  referenceTaskIds: stringArray.optional(),
});

/** `Artifact`: `artifactId` and at least one part are REQUIRED (A2A v1.0). */
export const ArtifactSchema = wireObject({
  artifactId: nonEmptyString,
  name: z.string().optional(),
  description: z.string().optional(),
  parts: partsSchema,
  metadata: JsonObjectSchema.optional(),
  extensions: stringArray.optional(),
});

/** `TaskStatus`. The timestamp is normalised to ISO-8601 UTC with milliseconds. */
export const TaskStatusSchema = wireObject({
  state: TaskStateSchema,
  message: MessageSchema.optional(),
  timestamp: wireTimestamp.optional(),
});

/** `Task`. `contextId` is not REQUIRED in the proto, although servers always set it (A2A v1.0). */
export const TaskSchema = wireObject({
  id: nonEmptyString,
  contextId: z.string().optional(),
  status: TaskStatusSchema,
  artifacts: z.array(ArtifactSchema).optional(),
  history: z.array(MessageSchema).optional(),
  metadata: JsonObjectSchema.optional(),
});

/** `TaskStatusUpdateEvent` (no `final` field in v1.0; an old one is ignored as unknown). */
export const TaskStatusUpdateEventSchema = wireObject({
  taskId: nonEmptyString,
  contextId: nonEmptyString,
  status: TaskStatusSchema,
  metadata: JsonObjectSchema.optional(),
});

/** `TaskArtifactUpdateEvent`. */
export const TaskArtifactUpdateEventSchema = wireObject({
  taskId: nonEmptyString,
  contextId: nonEmptyString,
  artifact: ArtifactSchema,
  append: wireBool.optional(),
  lastChunk: wireBool.optional(),
  metadata: JsonObjectSchema.optional(),
});

const taskMember = wireObject({ task: TaskSchema });
const messageMember = wireObject({ message: MessageSchema });

/** `StreamResponse`: exactly one of `task`, `message`, `statusUpdate`, `artifactUpdate` (A2A v1.0). */
export const StreamResponseSchema = oneOfSchema('a stream response', {
  task: taskMember,
  message: messageMember,
  statusUpdate: wireObject({ statusUpdate: TaskStatusUpdateEventSchema }),
  artifactUpdate: wireObject({ artifactUpdate: TaskArtifactUpdateEventSchema }),
});

/** `SendMessageResponse`: exactly one of `task`, `message`; never a bare Task (A2A v1.0). */
export const SendMessageResponseSchema = oneOfSchema('a send message response', {
  task: taskMember,
  message: messageMember,
});
