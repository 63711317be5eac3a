import type { ApiKeyView, DataEnvelope } from './api-key.view.js';
import type { BatchDeletedView, BatchListView, BatchView } from './batch.view.js';
import type { FileDeletedView, FileListView, FileView } from './file.view.js';
import type { ByokCredentialPage, ByokCredentialView, ByokTestView, DeletedReply } from './byok-credential.view.js';
import type { AnthropicModelInfoView, AnthropicModelListView } from './anthropic-model-info.view.js';
import type { ChatCompletionView, ModelListView, ModelView } from './chat-completion.view.js';
import type { EmbeddingsView } from './embeddings.view.js';
import type {
  BatchEmbedContentsView,
  CountTokensView,
  EmbedContentView,
  GeminiModelListView,
  GeminiModelView,
  GenerateContentView,
} from './gemini.view.js';
import type { GenerationListView, GenerationView } from './generation.view.js';
import type {
  CatalogChangeView,
  CatalogEntriesView,
  CatalogStateView,
  CatalogVersionListView,
  CatalogVersionView,
  EndpointDetailView,
} from './catalog-admin.view.js';
import type { ActivityItemView, AnalyticsMetaView, AnalyticsResultView } from './analytics.view.js';
import type { ContentLoggingView, GenerationContentView } from './content-logging.view.js';
import type { DaemonJwksView, DaemonSignatureHeadersView, DeleteInternView, InternListView, InternView } from './intern.view.js';
import type { CreditsView } from './key-write.dto.js';
import type { MessageTokenCountBody, MessageView } from './message.view.js';
import type { PageView, PresetVersionView, PresetView } from './preset.view.js';
import type { ResponsesResponseView } from './responses-response.view.js';
import type { IdentityView, OidcStartView } from '../messages/identity.messages.js';
import type { KeysCreateReply } from '../messages/key-write.messages.js';
import type { AuditLogPageView } from './audit-log.view.js';
import type { WorkspaceModelListView, WorkspaceModelView } from './workspace-model.dto.js';
import type { GuardrailKeyAssignmentView, GuardrailMemberAssignmentView, GuardrailView } from './guardrail.view.js';
import type {
  BudgetsEnvelope,
  OrganizationMemberView,
  TotalPage,
  WorkspaceBudgetView,
  WorkspaceMemberView,
  WorkspaceView,
} from './workspace.view.js';

/**
 * Every JSON body the public API answers, one named type each: the OpenAPI document's response
 * schemas are generated from this file (`npm run openapi`), so a new answer shape is
 * a new line here and a name in its controller's `@Answers(...)`.
 */
export type ApiKeyAnswer = DataEnvelope<ApiKeyView>;
export type ApiKeyListAnswer = DataEnvelope<ApiKeyView[]>;
export type ApiKeyCreatedAnswer = KeysCreateReply;
export type DeletedAnswer = DeletedReply;
export type ByokCredentialAnswer = DataEnvelope<ByokCredentialView>;
export type ByokCredentialPageAnswer = ByokCredentialPage;
export type ByokTestAnswer = DataEnvelope<ByokTestView>;
export type ChatCompletionAnswer = ChatCompletionView;
/** OpenAI's list, or Anthropic's page to a caller that speaks Anthropic's API. */
export type ModelListAnswer = ModelListView | AnthropicModelListView;
/** One model: OpenAI's list entry, or Anthropic's ModelInfo to a caller that speaks Anthropic's API. */
export type ModelAnswer = ModelView | AnthropicModelInfoView;
export type EmbeddingsAnswer = EmbeddingsView;
export type MessageAnswer = MessageView;
export type MessageTokenCountAnswer = MessageTokenCountBody;
/** `POST /v1beta/models/{model}:{method}`: generateContent's response, or embedContent's / batchEmbedContents' / countTokens'. */
export type GeminiMethodAnswer = GenerateContentView | EmbedContentView | BatchEmbedContentsView | CountTokensView;
export type GeminiModelListAnswer = GeminiModelListView;
export type GeminiModelAnswer = GeminiModelView;
export type ResponsesAnswer = ResponsesResponseView;
export type CreditsAnswer = DataEnvelope<CreditsView>;
export type GenerationAnswer = DataEnvelope<GenerationView>;
export type GenerationListAnswer = GenerationListView;
export type AnalyticsQueryAnswer = DataEnvelope<AnalyticsResultView>;
export type AnalyticsMetaAnswer = DataEnvelope<AnalyticsMetaView>;
export type ActivityAnswer = DataEnvelope<ActivityItemView[]>;
export type GenerationContentAnswer = DataEnvelope<GenerationContentView>;
export type ContentLoggingAnswer = DataEnvelope<ContentLoggingView>;
export type PresetAnswer = DataEnvelope<PresetView>;
export type PresetPageAnswer = PageView<PresetView>;
export type PresetVersionAnswer = DataEnvelope<PresetVersionView>;
export type PresetVersionPageAnswer = PageView<PresetVersionView>;
export type InternAnswer = InternView;
export type InternListAnswer = InternListView;
export type InternDeletedAnswer = DeleteInternView;
export type DaemonSignatureAnswer = DaemonSignatureHeadersView;
export type DaemonJwksAnswer = DaemonJwksView;
export type IdentityAnswer = DataEnvelope<IdentityView>;
export type OidcStartAnswer = DataEnvelope<OidcStartView>;

/** GET /health, and GET /health/ready while this replica can serve. */
export interface HealthAnswer {
  status: 'ok';
}

/** GET /health/ready when this replica cannot serve. */
export interface NotReadyAnswer {
  status: 'unavailable';
  reason: 'draining' | 'nats_disconnected';
}

/** GET /health/services: each service's status, or why it did not answer. */
export interface ServicesHealthAnswer {
  status: 'ok' | 'unavailable';
  services: Record<string, string>;
}
export type BatchAnswer = BatchView;
export type BatchListAnswer = BatchListView;
export type BatchDeletedAnswer = BatchDeletedView;
export type FileAnswer = FileView;
export type FileListAnswer = FileListView;
export type FileDeletedAnswer = FileDeletedView;

// Workspaces, guardrails, audit log (issue 31), in @openrouter/sdk's shapes.
export type WorkspaceAnswer = DataEnvelope<WorkspaceView>;
export type WorkspacePageAnswer = TotalPage<WorkspaceView>;
export type WorkspaceMemberPageAnswer = TotalPage<WorkspaceMemberView>;
export interface MembersAddedAnswer {
  added_count: number;
  data: WorkspaceMemberView[];
}
export interface MembersRemovedAnswer {
  removed_count: number;
}
export type WorkspaceBudgetAnswer = BudgetsEnvelope<WorkspaceBudgetView>;
export type WorkspaceBudgetListAnswer = BudgetsEnvelope<WorkspaceBudgetView[]>;
export type OrganizationMemberPageAnswer = TotalPage<OrganizationMemberView>;
export type GuardrailAnswer = DataEnvelope<GuardrailView>;
export type GuardrailPageAnswer = TotalPage<GuardrailView>;
export type GuardrailKeyAssignmentPageAnswer = TotalPage<GuardrailKeyAssignmentView>;
export type GuardrailMemberAssignmentPageAnswer = TotalPage<GuardrailMemberAssignmentView>;
export interface AssignedAnswer {
  assigned_count: number;
}
export interface UnassignedAnswer {
  unassigned_count: number;
}
export type AuditLogPageAnswer = AuditLogPageView;
/** The operator's admin API over the model catalog. */
export type CatalogChangeAnswer = CatalogChangeView;
export type CatalogVersionAnswer = CatalogVersionView;
export type CatalogVersionListAnswer = CatalogVersionListView;
export type CatalogEntriesAnswer = CatalogEntriesView;
/** One provider or model, as the catalog document holds it (the catalog file's schema). */
export type CatalogEntryAnswer = Record<string, unknown>;
/** The whole catalog file: `{providers: [...], models: [...]}` (the catalog file's schema). */
export interface CatalogFileAnswer {
  providers: Record<string, unknown>[];
  models: Record<string, unknown>[];
}
export type CatalogStateAnswer = CatalogStateView;
export type CatalogEndpointAnswer = EndpointDetailView;
export type WorkspaceModelAnswer = WorkspaceModelView;
export type WorkspaceModelListAnswer = WorkspaceModelListView;
