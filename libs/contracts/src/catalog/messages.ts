/*
 * Every message on the bus as one object (subject, payload class, reply or chunk type, who
 * serves and who may send it): the callers send these (`rpc.send(KeysGet, {...})`), the
 * services listen on their subject (`@MessagePattern(KeysGet.subject)`), and the bus permissions
 * follow from each one's route. Subjects are not versioned; a change is additive only, and a
 * breaking one gets a new subject.
 */
import { ModelsListRequest, ChatCreateRequest } from '../messages/chat.messages.js';
import { ChatStreamRequest, CallCancelledEvent } from '../messages/stream.messages.js';
import {
  ConsoleSessionEndRequest,
  ConsoleSessionOpenRequest,
  type ConsoleSessionEndReply,
  type ConsoleSessionView,
} from '../messages/console.messages.js';
import { AuthResolveRequest, type AuthResolveReply } from '../messages/auth.messages.js';
import { KeysGetRequest, KeysListRequest } from '../messages/keys.messages.js';
import {
  CreditsAddRequest,
  CreditsGetRequest,
  KeysCreateRequest,
  KeysDeleteForInternRequest,
  KeysDeleteRequest,
  KeysUpdateRequest,
  type KeysCreateReply,
} from '../messages/key-write.messages.js';
import {
  PresetsCreateVersionRequest,
  PresetsGetRequest,
  PresetsListRequest,
  PresetsVersionGetRequest,
  PresetsVersionsListRequest,
} from '../messages/presets.messages.js';
import { ByokResolveRequest, PresetsResolveRequest, type ByokResolveReply, type PresetResolveReply } from '../messages/resolve.messages.js';
import { ByokCreateRequest, ByokDeleteRequest, ByokGetRequest, ByokListRequest, ByokUpdateRequest } from '../messages/byok.messages.js';
import {
  IdentityRequest,
  OidcCallbackRequest,
  type IdentityView,
  type OidcCallbackView,
  type OidcStartView,
} from '../messages/identity.messages.js';
import { SpendReleasedEvent, SpendReserveRequest, type SpendReserveReply } from '../messages/spend.messages.js';
import { EmbeddingsCreateRequest } from '../messages/embeddings.messages.js';
import {
  ActivityRequest,
  AnalyticsQueryRequest,
  ContentLoggingGetRequest,
  ContentLoggingSetRequest,
  GenerationsGetRequest,
  GenerationsListRequest,
} from '../messages/generations.messages.js';
import type { ContentLoggingView, GenerationContentView } from '../http/content-logging.view.js';
import type { ActivityItemView, AnalyticsResultView } from '../http/analytics.view.js';
import { AdminCatalogChangeRequest, AdminCatalogReadRequest, CatalogChangedEvent } from '../messages/catalog-admin.messages.js';
import {
  DaemonSignRequest,
  InternExistsRequest,
  InternRef,
  InternsCreateRequest,
  InternsListRequest,
  InternsUpdateRequest,
  type InternExistsReply,
} from '../messages/interns.messages.js';
import {
  BatchAppendRequest,
  BatchCreateRequest,
  BatchListRequest,
  BatchRef,
  BatchResultsPageRequest,
  BatchSubmitRequest,
  type BatchCreatedReply,
  type BatchResultsPage,
} from '../messages/batches.messages.js';
import {
  AnyFileRef,
  FileAppendRequest,
  FileCompleteRequest,
  FileContentRequest,
  FileCreateRequest,
  FileListRequest,
  FileRef,
  type FileContentPart,
  type FileCreatedReply,
} from '../messages/files.messages.js';
import {
  NativeBatchCancelRequest,
  NativeBatchDeleteRequest,
  NativeBatchStatusRequest,
  NativeBatchSubmitRequest,
  type NativeBatchCancelReply,
  type NativeBatchDeleteReply,
  type NativeBatchStatusReply,
  type NativeBatchSubmitReply,
} from '../messages/native-batches.messages.js';
import { InternsDeletedEvent } from '../events/interns-deleted.event.js';
import { BatchesChangedEvent } from '../events/batches-changed.event.js';
import { KeysChangedEvent, KeysUsedEvent, WorkspaceChangedEvent } from '../events/keys-changed.event.js';
import type { HealthReply } from '../health.js';
import type { ApiKeyView } from '../http/api-key.view.js';
import type { CreditsView } from '../http/key-write.dto.js';
import type { PageView, PresetVersionView, PresetView } from '../http/preset.view.js';
import type { ByokCredentialPage, ByokCredentialView, DeletedReply } from '../http/byok-credential.view.js';
import type { ChatCompletionView, ModelListView } from '../http/chat-completion.view.js';
import type { MessageTokenCountView, MessageView } from '../http/message.view.js';
import type { ResponsesResponseView } from '../http/responses-response.view.js';
import type { EmbeddingsView } from '../http/embeddings.view.js';
import type { GenerationListView, GenerationView } from '../http/generation.view.js';
import type { CatalogChangeView } from '../http/catalog-admin.view.js';
import type { DaemonJwksView, DaemonSignatureHeadersView, DeleteInternView, InternListView, InternView } from '../http/intern.view.js';
import type { BatchDeletedView, BatchListView, BatchView } from '../http/batch.view.js';
import type { FileDeletedView, FileListView, FileView } from '../http/file.view.js';
import { EVENTS, SUBJECTS, type ServiceName } from '../subjects.js';
import { AuditLogListRequest, GuardrailsCallRequest, WorkspacesCallRequest } from '../messages/governance.messages.js';
import type { AuditLogPageView } from '../http/audit-log.view.js';
import { busEvent, EmptyRequest, rpcMessage, rpcStream, type RpcMessage } from './message-descriptor.js';
import { between, forBatch, forWorkspace, forWorkspaceOrBatch, fromGateway } from './message-route.js';

/** A reply that also names the keys whose cached principal changed, so the gateway forgets them. */
export type WithChangedKeys<T> = T & { changedKeyHashes: string[] };

const M = SUBJECTS.management;
const I = SUBJECTS.inference;
const B = SUBJECTS.batch;
const S = SUBJECTS.internSigning;

// Health: every service answers `{}` on its own subject.
export const HEALTH_MESSAGES: Record<ServiceName, RpcMessage<EmptyRequest, HealthReply>> = {
  management: rpcMessage<EmptyRequest, HealthReply>(M.health, EmptyRequest, fromGateway('management')),
  inference: rpcMessage<EmptyRequest, HealthReply>(I.health, EmptyRequest, fromGateway('inference')),
  batch: rpcMessage<EmptyRequest, HealthReply>(B.health, EmptyRequest, fromGateway('batch')),
  internSigning: rpcMessage<EmptyRequest, HealthReply>(S.health, EmptyRequest, fromGateway('intern-signing')),
};

// Management: keys, credits, presets, BYOK, identity, and what the gateway and inference resolve.
export const AuthResolve = rpcMessage<AuthResolveRequest, AuthResolveReply>(M.authResolve, AuthResolveRequest, fromGateway('management'));
export const KeysList = rpcMessage<KeysListRequest, ApiKeyView[]>(M.keysList, KeysListRequest, forWorkspace('management'));
export const KeysGet = rpcMessage<KeysGetRequest, ApiKeyView>(M.keysGet, KeysGetRequest, forWorkspace('management'));
export const KeysCreate = rpcMessage<KeysCreateRequest, KeysCreateReply>(M.keysCreate, KeysCreateRequest, forWorkspace('management'));
export const KeysUpdate = rpcMessage<KeysUpdateRequest, ApiKeyView>(M.keysUpdate, KeysUpdateRequest, forWorkspace('management'));
export const KeysDelete = rpcMessage<KeysDeleteRequest, DeletedReply>(M.keysDelete, KeysDeleteRequest, forWorkspace('management'));
export const KeysDeleteForIntern = rpcMessage<KeysDeleteForInternRequest, { deleted: number }>(
  M.keysDeleteForIntern,
  KeysDeleteForInternRequest,
  between('intern-signing', 'management'),
);
export const CreditsGet = rpcMessage<CreditsGetRequest, CreditsView>(M.creditsGet, CreditsGetRequest, forWorkspaceOrBatch('management'));
export const CreditsAdd = rpcMessage<CreditsAddRequest, CreditsView>(M.creditsAdd, CreditsAddRequest, forWorkspace('management'));
export const PresetsCreateVersion = rpcMessage<PresetsCreateVersionRequest, PresetView>(
  M.presetsCreateVersion,
  PresetsCreateVersionRequest,
  forWorkspace('management'),
);
export const PresetsList = rpcMessage<PresetsListRequest, PageView<PresetView>>(
  M.presetsList,
  PresetsListRequest,
  forWorkspace('management'),
);
export const PresetsGet = rpcMessage<PresetsGetRequest, PresetView>(M.presetsGet, PresetsGetRequest, forWorkspace('management'));
export const PresetsVersionsList = rpcMessage<PresetsVersionsListRequest, PageView<PresetVersionView>>(
  M.presetsVersionsList,
  PresetsVersionsListRequest,
  forWorkspace('management'),
);
export const PresetsVersionGet = rpcMessage<PresetsVersionGetRequest, PresetVersionView>(
  M.presetsVersionGet,
  PresetsVersionGetRequest,
  forWorkspace('management'),
);
export const PresetsResolve = rpcMessage<PresetsResolveRequest, PresetResolveReply>(
  M.presetsResolve,
  PresetsResolveRequest,
  between('inference', 'management'),
);
export const ByokCreate = rpcMessage<ByokCreateRequest, ByokCredentialView>(M.byokCreate, ByokCreateRequest, forWorkspace('management'));
export const ByokList = rpcMessage<ByokListRequest, ByokCredentialPage>(M.byokList, ByokListRequest, forWorkspace('management'));
export const ByokGet = rpcMessage<ByokGetRequest, ByokCredentialView>(M.byokGet, ByokGetRequest, forWorkspace('management'));
export const ByokUpdate = rpcMessage<ByokUpdateRequest, ByokCredentialView>(M.byokUpdate, ByokUpdateRequest, forWorkspace('management'));
export const ByokDelete = rpcMessage<ByokDeleteRequest, DeletedReply>(M.byokDelete, ByokDeleteRequest, forWorkspace('management'));
export const SpendReserve = rpcMessage<SpendReserveRequest, SpendReserveReply>(
  M.spendReserve,
  SpendReserveRequest,
  between('inference', 'management'),
);
export const ByokResolve = rpcMessage<ByokResolveRequest, ByokResolveReply>(
  M.byokResolve,
  ByokResolveRequest,
  between('inference', 'management'),
);
export const IdentityGet = rpcMessage<IdentityRequest, IdentityView>(M.identityGet, IdentityRequest, forWorkspace('management'));
export const IdentityUnlink = rpcMessage<IdentityRequest, WithChangedKeys<IdentityView>>(
  M.identityUnlink,
  IdentityRequest,
  forWorkspace('management'),
);
export const OidcStart = rpcMessage<IdentityRequest, OidcStartView>(M.identityOidcStart, IdentityRequest, forWorkspace('management'));
export const ConsoleSessionOpen = rpcMessage<ConsoleSessionOpenRequest, ConsoleSessionView>(
  M.consoleSessionOpen,
  ConsoleSessionOpenRequest,
  fromGateway('management'),
);
export const ConsoleSessionEnd = rpcMessage<ConsoleSessionEndRequest, ConsoleSessionEndReply>(
  M.consoleSessionEnd,
  ConsoleSessionEndRequest,
  fromGateway('management'),
);
export const OidcCallback = rpcMessage<OidcCallbackRequest, WithChangedKeys<OidcCallbackView>>(
  M.identityOidcCallback,
  OidcCallbackRequest,
  fromGateway('management'),
);

// Inference: the front doors (each with its streamed twin), embeddings, models, native batches.
export const ChatCreate = rpcMessage<ChatCreateRequest, ChatCompletionView>(
  I.chatCreate,
  ChatCreateRequest,
  forWorkspaceOrBatch('inference'),
  { trusted: true },
);
/** What a stream yields: the client's bytes, one or more frames a packet. */
export type StreamPacket = Uint8Array;

/** Chunks are chat-completion chunks, already serialised (the gateway writes them as `data:` lines). */
export const ChatStream = rpcStream<ChatStreamRequest, StreamPacket>(I.chatStream, ChatStreamRequest, forWorkspace('inference'), {
  trusted: true,
});
export const MessagesCreate = rpcMessage<ChatCreateRequest, MessageView>(
  I.messagesCreate,
  ChatCreateRequest,
  forWorkspaceOrBatch('inference'),
  { trusted: true },
);
export const MessagesCountTokens = rpcMessage<ChatCreateRequest, MessageTokenCountView>(
  I.messagesCountTokens,
  ChatCreateRequest,
  forWorkspace('inference'),
  { trusted: true },
);
/** Chunks are Anthropic SSE events, already framed. */
export const MessagesStream = rpcStream<ChatStreamRequest, StreamPacket>(I.messagesStream, ChatStreamRequest, forWorkspace('inference'), {
  trusted: true,
});
export const ResponsesCreate = rpcMessage<ChatCreateRequest, ResponsesResponseView>(
  I.responsesCreate,
  ChatCreateRequest,
  forWorkspaceOrBatch('inference'),
  { trusted: true },
);
/** Google's generateContent front door: the answer is a Gemini GenerateContentResponse. */
export const GenerateContentCreate = rpcMessage<ChatCreateRequest, Record<string, unknown>>(
  I.generateContentCreate,
  ChatCreateRequest,
  forWorkspace('inference'),
  { trusted: true },
);
/** `:countTokens`: Gemini's CountTokensResponse. */
export const GenerateContentCount = rpcMessage<ChatCreateRequest, { totalTokens: number }>(
  I.generateContentCount,
  ChatCreateRequest,
  forWorkspace('inference'),
  { trusted: true },
);
/** Chunks are Gemini SSE frames (`data: <GenerateContentResponse>`), already framed. */
export const GenerateContentStream = rpcStream<ChatStreamRequest, StreamPacket>(
  I.generateContentStream,
  ChatStreamRequest,
  forWorkspace('inference'),
  { trusted: true },
);
/** Chunks are Responses API events, already framed. */
export const ResponsesStream = rpcStream<ChatStreamRequest, StreamPacket>(I.responsesStream, ChatStreamRequest, forWorkspace('inference'), {
  trusted: true,
});
export const EmbeddingsCreate = rpcMessage<EmbeddingsCreateRequest, EmbeddingsView>(
  I.embeddingsCreate,
  EmbeddingsCreateRequest,
  forWorkspaceOrBatch('inference'),
);
export const ModelsList = rpcMessage<ModelsListRequest, ModelListView>(I.modelsList, ModelsListRequest, forWorkspace('inference'));
export const GenerationsGet = rpcMessage<GenerationsGetRequest, GenerationView>(
  I.generationsGet,
  GenerationsGetRequest,
  forWorkspace('inference'),
);
export const GenerationsList = rpcMessage<GenerationsListRequest, GenerationListView>(
  I.generationsList,
  GenerationsListRequest,
  forWorkspace('inference'),
);
/** An operator's read of the catalog: the view's shape (`CatalogDocumentView`, `CatalogEntriesView`, ...). */
export const AdminCatalogRead = rpcMessage<AdminCatalogReadRequest, unknown>(
  I.adminCatalogRead,
  AdminCatalogReadRequest,
  fromGateway('inference'),
);
export const AdminCatalogChange = rpcMessage<AdminCatalogChangeRequest, CatalogChangeView>(
  I.adminCatalogChange,
  AdminCatalogChangeRequest,
  fromGateway('inference'),
);
export const AnalyticsQuery = rpcMessage<AnalyticsQueryRequest, AnalyticsResultView>(
  I.analyticsQuery,
  AnalyticsQueryRequest,
  forWorkspace('inference'),
);
export const AnalyticsActivity = rpcMessage<ActivityRequest, ActivityItemView[]>(
  I.analyticsActivity,
  ActivityRequest,
  forWorkspace('inference'),
);
export const GenerationsContent = rpcMessage<GenerationsGetRequest, GenerationContentView>(
  I.generationsContent,
  GenerationsGetRequest,
  forWorkspace('inference'),
);
export const ContentLoggingGet = rpcMessage<ContentLoggingGetRequest, ContentLoggingView>(
  I.contentLoggingGet,
  ContentLoggingGetRequest,
  forWorkspace('inference'),
);
export const ContentLoggingSet = rpcMessage<ContentLoggingSetRequest, ContentLoggingView>(
  I.contentLoggingSet,
  ContentLoggingSetRequest,
  forWorkspace('inference'),
);
export const NativeBatchSubmit = rpcMessage<NativeBatchSubmitRequest, NativeBatchSubmitReply>(
  I.batchesNativeSubmit,
  NativeBatchSubmitRequest,
  forBatch('inference'),
);
export const NativeBatchStatus = rpcMessage<NativeBatchStatusRequest, NativeBatchStatusReply>(
  I.batchesNativeStatus,
  NativeBatchStatusRequest,
  forBatch('inference'),
);
export const NativeBatchCancel = rpcMessage<NativeBatchCancelRequest, NativeBatchCancelReply>(
  I.batchesNativeCancel,
  NativeBatchCancelRequest,
  forBatch('inference'),
);
export const NativeBatchDelete = rpcMessage<NativeBatchDeleteRequest, NativeBatchDeleteReply>(
  I.batchesNativeDelete,
  NativeBatchDeleteRequest,
  forBatch('inference'),
);

// Batch.
export const BatchesCreate = rpcMessage<BatchCreateRequest, BatchCreatedReply>(B.batchesCreate, BatchCreateRequest, forWorkspace('batch'));
export const BatchesAppend = rpcMessage<BatchAppendRequest, { stored: number }>(B.batchesAppend, BatchAppendRequest, forWorkspace('batch'));
export const BatchesSubmit = rpcMessage<BatchSubmitRequest, BatchView>(B.batchesSubmit, BatchSubmitRequest, forWorkspace('batch'));
export const BatchesAbort = rpcMessage<BatchRef, { aborted: boolean }>(B.batchesAbort, BatchRef, forWorkspace('batch'));
export const BatchesList = rpcMessage<BatchListRequest, BatchListView>(B.batchesList, BatchListRequest, forWorkspace('batch'));
export const BatchesGet = rpcMessage<BatchRef, BatchView>(B.batchesGet, BatchRef, forWorkspace('batch'));
export const BatchesResults = rpcMessage<BatchResultsPageRequest, BatchResultsPage>(
  B.batchesResults,
  BatchResultsPageRequest,
  forWorkspace('batch'),
);
export const BatchesCancel = rpcMessage<BatchRef, BatchView>(B.batchesCancel, BatchRef, forWorkspace('batch'));
export const BatchesDelete = rpcMessage<BatchRef, BatchDeletedView>(B.batchesDelete, BatchRef, forWorkspace('batch'));
export const FilesCreate = rpcMessage<FileCreateRequest, FileCreatedReply>(B.filesCreate, FileCreateRequest, forWorkspace('batch'));
export const FilesAppend = rpcMessage<FileAppendRequest, { stored: number }>(B.filesAppend, FileAppendRequest, forWorkspace('batch'));
export const FilesComplete = rpcMessage<FileCompleteRequest, FileView>(B.filesComplete, FileCompleteRequest, forWorkspace('batch'));
export const FilesAbort = rpcMessage<FileRef, { aborted: boolean }>(B.filesAbort, FileRef, forWorkspace('batch'));
export const FilesList = rpcMessage<FileListRequest, FileListView>(B.filesList, FileListRequest, forWorkspace('batch'));
export const FilesGet = rpcMessage<AnyFileRef, FileView>(B.filesGet, AnyFileRef, forWorkspace('batch'));
export const FilesContent = rpcMessage<FileContentRequest, FileContentPart>(B.filesContent, FileContentRequest, forWorkspace('batch'));
export const FilesDelete = rpcMessage<FileRef, FileDeletedView>(B.filesDelete, FileRef, forWorkspace('batch'));

// Intern-signing.
export const InternsList = rpcMessage<InternsListRequest, InternListView>(S.list, InternsListRequest, forWorkspace('intern-signing'));
export const InternsGet = rpcMessage<InternRef, InternView>(S.get, InternRef, forWorkspace('intern-signing'));
export const InternsCreate = rpcMessage<InternsCreateRequest, InternView>(S.create, InternsCreateRequest, forWorkspace('intern-signing'));
export const InternsUpdate = rpcMessage<InternsUpdateRequest, InternView>(S.update, InternsUpdateRequest, forWorkspace('intern-signing'));
export const InternsDelete = rpcMessage<InternRef, DeleteInternView>(S.delete, InternRef, forWorkspace('intern-signing'));
export const InternExists = rpcMessage<InternExistsRequest, InternExistsReply>(
  S.exists,
  InternExistsRequest,
  between('management', 'intern-signing'),
);
export const DaemonSign = rpcMessage<DaemonSignRequest, DaemonSignatureHeadersView>(
  S.daemonSign,
  DaemonSignRequest,
  forWorkspace('intern-signing'),
  { trusted: true },
);
export const DaemonJwks = rpcMessage<EmptyRequest, DaemonJwksView>(S.daemonJwks, EmptyRequest, fromGateway('intern-signing'));

// Events (core NATS; usage goes through JetStream with its own envelope, see usage-recorded.event.ts).
export const KeysChanged = busEvent(EVENTS.keysChanged, KeysChangedEvent);
export const KeysUsed = busEvent(EVENTS.keysUsed, KeysUsedEvent);
export const SpendReleased = busEvent(EVENTS.spendReleased, SpendReleasedEvent);
export const ByokChanged = busEvent(EVENTS.byokChanged, WorkspaceChangedEvent);
export const PresetsChanged = busEvent(EVENTS.presetsChanged, WorkspaceChangedEvent);
export const CatalogChanged = busEvent(EVENTS.catalogChanged, CatalogChangedEvent);
export const CallCancelled = busEvent(EVENTS.callCancelled, CallCancelledEvent);
export const InternsDeleted = busEvent(EVENTS.internsDeleted, InternsDeletedEvent);
export const BatchesChanged = busEvent(EVENTS.batchesChanged, BatchesChangedEvent);

// Workspaces, guardrails, audit log (issue 31): the reply's shape depends on the operation.
export const WorkspacesCall = rpcMessage<WorkspacesCallRequest, unknown>(
  M.workspacesCall,
  WorkspacesCallRequest,
  forWorkspace('management'),
);
export const GuardrailsCall = rpcMessage<GuardrailsCallRequest, unknown>(
  M.guardrailsCall,
  GuardrailsCallRequest,
  forWorkspace('management'),
);
export const AuditLogList = rpcMessage<AuditLogListRequest, AuditLogPageView>(
  M.auditLogList,
  AuditLogListRequest,
  forWorkspace('management'),
);
