/*
 * Every message on the bus as one object (its declaration in message-routes.ts, payload class,
 * reply or chunk type): the callers send these (`rpc.send(KeysGet, {...})`), the
 * services listen on their subject (`@MessagePattern(KeysGet.subject)`). Subjects are not
 * versioned; a change is additive only, and a breaking one gets a new subject.
 */
import { ModelsListRequest, ChatCreateRequest } from '../messages/chat.messages.js';
import { ChatStreamRequest, CallCancelledEvent } from '../messages/stream.messages.js';
import {
  ConsoleOperatorSessionRequest,
  ConsoleSessionEndRequest,
  ConsoleSessionOpenRequest,
  ConsoleSessionOpenWithKeyRequest,
  type ConsoleOperatorSessionReply,
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
import {
  ByokCreateRequest,
  ByokDeleteRequest,
  ByokGetRequest,
  ByokListRequest,
  ByokTestRequest,
  ByokUpdateRequest,
} from '../messages/byok.messages.js';
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
import {
  AdminCatalogChangeRequest,
  AdminCatalogReadRequest,
  CatalogChangedEvent,
  EndpointCooledEvent,
} from '../messages/catalog-admin.messages.js';
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
  type NativeBatchHandle,
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
import type { ByokCredentialPage, ByokCredentialView, ByokTestView, DeletedReply } from '../http/byok-credential.view.js';
import type { ChatCompletionView, ModelListView } from '../http/chat-completion.view.js';
import type { MessageTokenCountView, MessageView } from '../http/message.view.js';
import type { ResponsesResponseView } from '../http/responses-response.view.js';
import type { EmbeddingsView } from '../http/embeddings.view.js';
import type { GenerationListView, GenerationView } from '../http/generation.view.js';
import type { CatalogChangeView } from '../http/catalog-admin.view.js';
import type { DaemonJwksView, DaemonSignatureHeadersView, DeleteInternView, InternListView, InternView } from '../http/intern.view.js';
import type { BatchDeletedView, BatchListView, BatchView } from '../http/batch.view.js';
import type { FileDeletedView, FileListView, FileView } from '../http/file.view.js';
import type { ServiceName } from '../subjects.js';
import { EVENT_DECLARATIONS, REQUEST_DECLARATIONS } from './message-routes.js';
import {
  AuditLogListRequest,
  GuardrailsCallRequest,
  WorkspaceModelsCallRequest,
  WorkspacesCallRequest,
} from '../messages/governance.messages.js';
import type { AuditLogPageView } from '../http/audit-log.view.js';
import type { ChatCompletionRequestDto } from '../http/chat-completion-request.dto.js';
import type { MessagesCountTokensRequestDto, MessagesRequestDto } from '../http/messages-request.dto.js';
import type { ResponsesRequestDto } from '../http/responses-request.dto.js';
import type { EmbeddingsRequestDto } from '../http/embeddings-request.dto.js';
import type { PresetChatRequestDto } from '../http/preset-chat-request.dto.js';
import { AdminAuditLogListRequest, CatalogAuditAppendRequest, type CatalogAuditAppendReply } from '../messages/catalog-audit.messages.js';
import { busEvent, EmptyRequest, rpcMessage, rpcStream, type RpcMessage } from './message-descriptor.js';

/** A reply that also names the keys whose cached principal changed, so the gateway forgets them. */
export type WithChangedKeys<T> = T & { changedKeyHashes: string[] };

const M = REQUEST_DECLARATIONS.management;
const I = REQUEST_DECLARATIONS.inference;
const B = REQUEST_DECLARATIONS.batch;
const S = REQUEST_DECLARATIONS.internSigning;
const E = EVENT_DECLARATIONS;

// Health: every service answers `{}` on its own subject.
export const HEALTH_MESSAGES: Record<ServiceName, RpcMessage<EmptyRequest, HealthReply>> = {
  management: rpcMessage<EmptyRequest, HealthReply>(M.health, EmptyRequest),
  inference: rpcMessage<EmptyRequest, HealthReply>(I.health, EmptyRequest),
  batch: rpcMessage<EmptyRequest, HealthReply>(B.health, EmptyRequest),
  internSigning: rpcMessage<EmptyRequest, HealthReply>(S.health, EmptyRequest),
};

// Management: keys, credits, presets, BYOK, identity, and what the gateway and inference resolve.
export const AuthResolve = rpcMessage<AuthResolveRequest, AuthResolveReply>(M.authResolve, AuthResolveRequest);
export const KeysList = rpcMessage<KeysListRequest, ApiKeyView[]>(M.keysList, KeysListRequest);
export const KeysGet = rpcMessage<KeysGetRequest, ApiKeyView>(M.keysGet, KeysGetRequest);
export const KeysCreate = rpcMessage<KeysCreateRequest, KeysCreateReply>(M.keysCreate, KeysCreateRequest);
export const KeysUpdate = rpcMessage<KeysUpdateRequest, ApiKeyView>(M.keysUpdate, KeysUpdateRequest);
export const KeysDelete = rpcMessage<KeysDeleteRequest, DeletedReply>(M.keysDelete, KeysDeleteRequest);
export const KeysDeleteForIntern = rpcMessage<KeysDeleteForInternRequest, { deleted: number }>(
  M.keysDeleteForIntern,
  KeysDeleteForInternRequest,
);
export const CreditsGet = rpcMessage<CreditsGetRequest, CreditsView>(M.creditsGet, CreditsGetRequest);
export const CreditsAdd = rpcMessage<CreditsAddRequest, CreditsView>(M.creditsAdd, CreditsAddRequest);
export const PresetsCreateVersion = rpcMessage<PresetsCreateVersionRequest<PresetChatRequestDto>, PresetView>(
  M.presetsCreateVersion,
  PresetsCreateVersionRequest,
);
export const PresetsList = rpcMessage<PresetsListRequest, PageView<PresetView>>(M.presetsList, PresetsListRequest);
export const PresetsGet = rpcMessage<PresetsGetRequest, PresetView>(M.presetsGet, PresetsGetRequest);
export const PresetsVersionsList = rpcMessage<PresetsVersionsListRequest, PageView<PresetVersionView>>(
  M.presetsVersionsList,
  PresetsVersionsListRequest,
);
export const PresetsVersionGet = rpcMessage<PresetsVersionGetRequest, PresetVersionView>(M.presetsVersionGet, PresetsVersionGetRequest);
export const PresetsResolve = rpcMessage<PresetsResolveRequest, PresetResolveReply>(M.presetsResolve, PresetsResolveRequest);
export const ByokCreate = rpcMessage<ByokCreateRequest, ByokCredentialView>(M.byokCreate, ByokCreateRequest);
export const ByokList = rpcMessage<ByokListRequest, ByokCredentialPage>(M.byokList, ByokListRequest);
export const ByokGet = rpcMessage<ByokGetRequest, ByokCredentialView>(M.byokGet, ByokGetRequest);
export const ByokUpdate = rpcMessage<ByokUpdateRequest, ByokCredentialView>(M.byokUpdate, ByokUpdateRequest);
export const ByokDelete = rpcMessage<ByokDeleteRequest, DeletedReply>(M.byokDelete, ByokDeleteRequest);
export const SpendReserve = rpcMessage<SpendReserveRequest, SpendReserveReply>(M.spendReserve, SpendReserveRequest);
export const ByokResolve = rpcMessage<ByokResolveRequest, ByokResolveReply>(M.byokResolve, ByokResolveRequest);
export const IdentityGet = rpcMessage<IdentityRequest, IdentityView>(M.identityGet, IdentityRequest);
export const IdentityUnlink = rpcMessage<IdentityRequest, WithChangedKeys<IdentityView>>(M.identityUnlink, IdentityRequest);
export const OidcStart = rpcMessage<IdentityRequest, OidcStartView>(M.identityOidcStart, IdentityRequest);
export const ConsoleSessionOpen = rpcMessage<ConsoleSessionOpenRequest, ConsoleSessionView>(
  M.consoleSessionOpen,
  ConsoleSessionOpenRequest,
);
export const ConsoleSessionEnd = rpcMessage<ConsoleSessionEndRequest, ConsoleSessionEndReply>(
  M.consoleSessionEnd,
  ConsoleSessionEndRequest,
);
export const ConsoleSessionOpenWithKey = rpcMessage<ConsoleSessionOpenWithKeyRequest, ConsoleSessionView>(
  M.consoleSessionOpenWithKey,
  ConsoleSessionOpenWithKeyRequest,
);
export const ConsoleOperatorSessionOpen = rpcMessage<ConsoleOperatorSessionRequest, ConsoleOperatorSessionReply>(
  M.consoleOperatorSessionOpen,
  ConsoleOperatorSessionRequest,
);
export const ConsoleOperatorSessionCheck = rpcMessage<ConsoleOperatorSessionRequest, ConsoleOperatorSessionReply>(
  M.consoleOperatorSessionCheck,
  ConsoleOperatorSessionRequest,
);
export const ConsoleOperatorSessionEnd = rpcMessage<ConsoleOperatorSessionRequest, ConsoleOperatorSessionReply>(
  M.consoleOperatorSessionEnd,
  ConsoleOperatorSessionRequest,
);
export const OidcCallback = rpcMessage<OidcCallbackRequest, WithChangedKeys<OidcCallbackView>>(M.identityOidcCallback, OidcCallbackRequest);

// Inference: the front doors (each with its streamed twin), embeddings, models, native batches.
export const ChatCreate = rpcMessage<ChatCreateRequest<ChatCompletionRequestDto>, ChatCompletionView>(I.chatCreate, ChatCreateRequest);
/** What a stream yields: the client's bytes, one or more frames a packet. */
export type StreamPacket = Uint8Array;

/** Chunks are chat-completion chunks, already serialised (the gateway writes them as `data:` lines). */
export const ChatStream = rpcStream<ChatStreamRequest<ChatCompletionRequestDto>, StreamPacket>(I.chatStream, ChatStreamRequest);
export const MessagesCreate = rpcMessage<ChatCreateRequest<MessagesRequestDto>, MessageView>(I.messagesCreate, ChatCreateRequest);
export const MessagesCountTokens = rpcMessage<ChatCreateRequest<MessagesCountTokensRequestDto>, MessageTokenCountView>(
  I.messagesCountTokens,
  ChatCreateRequest,
);
/** Chunks are Anthropic SSE events, already framed. */
export const MessagesStream = rpcStream<ChatStreamRequest<MessagesRequestDto>, StreamPacket>(I.messagesStream, ChatStreamRequest);
export const ResponsesCreate = rpcMessage<ChatCreateRequest<ResponsesRequestDto>, ResponsesResponseView>(
  I.responsesCreate,
  ChatCreateRequest,
);
/** Google's generateContent front door: the answer is a Gemini GenerateContentResponse. */
export const GenerateContentCreate = rpcMessage<ChatCreateRequest, Record<string, unknown>>(I.generateContentCreate, ChatCreateRequest);
/** `:countTokens`: Gemini's CountTokensResponse. */
export const GenerateContentCount = rpcMessage<ChatCreateRequest, { totalTokens: number }>(I.generateContentCount, ChatCreateRequest);
/** Chunks are Gemini SSE frames (`data: <GenerateContentResponse>`), already framed. */
export const GenerateContentStream = rpcStream<ChatStreamRequest, StreamPacket>(I.generateContentStream, ChatStreamRequest);
/** Chunks are Responses API events, already framed. */
export const ResponsesStream = rpcStream<ChatStreamRequest<ResponsesRequestDto>, StreamPacket>(I.responsesStream, ChatStreamRequest);
export const EmbeddingsCreate = rpcMessage<EmbeddingsCreateRequest<EmbeddingsRequestDto>, EmbeddingsView>(
  I.embeddingsCreate,
  EmbeddingsCreateRequest,
);
export const ModelsList = rpcMessage<ModelsListRequest, ModelListView>(I.modelsList, ModelsListRequest);
export const ByokTest = rpcMessage<ByokTestRequest, ByokTestView>(I.byokTest, ByokTestRequest);
export const GenerationsGet = rpcMessage<GenerationsGetRequest, GenerationView>(I.generationsGet, GenerationsGetRequest);
export const GenerationsList = rpcMessage<GenerationsListRequest, GenerationListView>(I.generationsList, GenerationsListRequest);
/** An operator's read of the catalog: the view's shape (`CatalogDocumentView`, `CatalogEntriesView`, ...). */
export const AdminCatalogRead = rpcMessage<AdminCatalogReadRequest, unknown>(I.adminCatalogRead, AdminCatalogReadRequest);
export const AdminCatalogChange = rpcMessage<AdminCatalogChangeRequest, CatalogChangeView>(I.adminCatalogChange, AdminCatalogChangeRequest);
export const AnalyticsQuery = rpcMessage<AnalyticsQueryRequest, AnalyticsResultView>(I.analyticsQuery, AnalyticsQueryRequest);
export const AnalyticsActivity = rpcMessage<ActivityRequest, ActivityItemView[]>(I.analyticsActivity, ActivityRequest);
export const GenerationsContent = rpcMessage<GenerationsGetRequest, GenerationContentView>(I.generationsContent, GenerationsGetRequest);
export const ContentLoggingGet = rpcMessage<ContentLoggingGetRequest, ContentLoggingView>(I.contentLoggingGet, ContentLoggingGetRequest);
export const ContentLoggingSet = rpcMessage<ContentLoggingSetRequest, ContentLoggingView>(I.contentLoggingSet, ContentLoggingSetRequest);
export const NativeBatchSubmit = rpcMessage<NativeBatchSubmitRequest, NativeBatchSubmitReply>(
  I.batchesNativeSubmit,
  NativeBatchSubmitRequest,
);
export const NativeBatchStatus = rpcMessage<NativeBatchStatusRequest<NativeBatchHandle>, NativeBatchStatusReply>(
  I.batchesNativeStatus,
  NativeBatchStatusRequest,
);
export const NativeBatchCancel = rpcMessage<NativeBatchCancelRequest<NativeBatchHandle>, NativeBatchCancelReply>(
  I.batchesNativeCancel,
  NativeBatchCancelRequest,
);
export const NativeBatchDelete = rpcMessage<NativeBatchDeleteRequest<NativeBatchHandle>, NativeBatchDeleteReply>(
  I.batchesNativeDelete,
  NativeBatchDeleteRequest,
);

// Batch.
export const BatchesCreate = rpcMessage<BatchCreateRequest, BatchCreatedReply>(B.batchesCreate, BatchCreateRequest);
export const BatchesAppend = rpcMessage<BatchAppendRequest, { stored: number }>(B.batchesAppend, BatchAppendRequest);
export const BatchesSubmit = rpcMessage<BatchSubmitRequest, BatchView>(B.batchesSubmit, BatchSubmitRequest);
export const BatchesAbort = rpcMessage<BatchRef, { aborted: boolean }>(B.batchesAbort, BatchRef);
export const BatchesList = rpcMessage<BatchListRequest, BatchListView>(B.batchesList, BatchListRequest);
export const BatchesGet = rpcMessage<BatchRef, BatchView>(B.batchesGet, BatchRef);
export const BatchesResults = rpcMessage<BatchResultsPageRequest, BatchResultsPage>(B.batchesResults, BatchResultsPageRequest);
export const BatchesCancel = rpcMessage<BatchRef, BatchView>(B.batchesCancel, BatchRef);
export const BatchesDelete = rpcMessage<BatchRef, BatchDeletedView>(B.batchesDelete, BatchRef);
export const FilesCreate = rpcMessage<FileCreateRequest, FileCreatedReply>(B.filesCreate, FileCreateRequest);
export const FilesAppend = rpcMessage<FileAppendRequest, { stored: number }>(B.filesAppend, FileAppendRequest);
export const FilesComplete = rpcMessage<FileCompleteRequest, FileView>(B.filesComplete, FileCompleteRequest);
export const FilesAbort = rpcMessage<FileRef, { aborted: boolean }>(B.filesAbort, FileRef);
export const FilesList = rpcMessage<FileListRequest, FileListView>(B.filesList, FileListRequest);
export const FilesGet = rpcMessage<AnyFileRef, FileView>(B.filesGet, AnyFileRef);
export const FilesContent = rpcMessage<FileContentRequest, FileContentPart>(B.filesContent, FileContentRequest);
export const FilesDelete = rpcMessage<FileRef, FileDeletedView>(B.filesDelete, FileRef);

// Intern-signing.
export const InternsList = rpcMessage<InternsListRequest, InternListView>(S.list, InternsListRequest);
export const InternsGet = rpcMessage<InternRef, InternView>(S.get, InternRef);
export const InternsCreate = rpcMessage<InternsCreateRequest, InternView>(S.create, InternsCreateRequest);
export const InternsUpdate = rpcMessage<InternsUpdateRequest, InternView>(S.update, InternsUpdateRequest);
export const InternsDelete = rpcMessage<InternRef, DeleteInternView>(S.delete, InternRef);
export const InternExists = rpcMessage<InternExistsRequest, InternExistsReply>(S.exists, InternExistsRequest);
export const DaemonSign = rpcMessage<DaemonSignRequest, DaemonSignatureHeadersView>(S.daemonSign, DaemonSignRequest);
export const DaemonJwks = rpcMessage<EmptyRequest, DaemonJwksView>(S.daemonJwks, EmptyRequest);

// Events (core NATS; usage goes through JetStream with its own envelope, see usage-recorded.event.ts).
export const KeysChanged = busEvent(E.keysChanged, KeysChangedEvent);
export const KeysUsed = busEvent(E.keysUsed, KeysUsedEvent);
export const SpendReleased = busEvent(E.spendReleased, SpendReleasedEvent);
export const ByokChanged = busEvent(E.byokChanged, WorkspaceChangedEvent);
export const PresetsChanged = busEvent(E.presetsChanged, WorkspaceChangedEvent);
export const CatalogChanged = busEvent(E.catalogChanged, CatalogChangedEvent);
export const EndpointCooled = busEvent(E.endpointCooled, EndpointCooledEvent);
export const CallCancelled = busEvent(E.callCancelled, CallCancelledEvent);
export const InternsDeleted = busEvent(E.internsDeleted, InternsDeletedEvent);
export const BatchesChanged = busEvent(E.batchesChanged, BatchesChangedEvent);

// Workspaces, guardrails, audit log (issue 31): the reply's shape depends on the operation.
export const WorkspacesCall = rpcMessage<WorkspacesCallRequest, unknown>(M.workspacesCall, WorkspacesCallRequest);
export const GuardrailsCall = rpcMessage<GuardrailsCallRequest, unknown>(M.guardrailsCall, GuardrailsCallRequest);
export const WorkspaceModelsCall = rpcMessage<WorkspaceModelsCallRequest, unknown>(M.workspaceModelsCall, WorkspaceModelsCallRequest);
export const AuditLogList = rpcMessage<AuditLogListRequest, AuditLogPageView>(M.auditLogList, AuditLogListRequest);
export const AdminAuditLogList = rpcMessage<AdminAuditLogListRequest, AuditLogPageView>(M.adminAuditLogList, AdminAuditLogListRequest);
/** Catalog versions into the audit log: idempotent by each record's origin. */
export const CatalogAuditAppend = rpcMessage<CatalogAuditAppendRequest, CatalogAuditAppendReply>(
  M.auditCatalogAppend,
  CatalogAuditAppendRequest,
);
