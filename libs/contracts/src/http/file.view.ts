/**
 * Public shapes of the files API (OpenAI's file object, list and deletion), for the official
 * batch flow: input files uploaded with purpose `batch`, and each ended batch's output and
 * error files, which are views of its results (spec §2.1.1 items as JSONL).
 */
export const FILE_PURPOSES = ['batch'] as const;
export type FilePurpose = (typeof FILE_PURPOSES)[number];
/** What `GET /v1/files?purpose=` may ask for: uploads, or batches' output and error files. */
export const FILE_LIST_PURPOSES = ['batch', 'batch_output'] as const;
export type FileListPurpose = (typeof FILE_LIST_PURPOSES)[number];

/** Uploaded files: `file-` and 32 lower-case hex characters. */
export const FILE_ID_PATTERN = /^file-[0-9a-f]{32}$/;
/** A batch's output (`file-out-`) and error (`file-err-`) files: the batch id's hex after the prefix. */
export const BATCH_FILE_ID_PATTERN = /^file-(out|err)-([0-9a-f]{32})$/;

export type BatchFileKind = 'output' | 'error';

export function batchFileId(batchId: string, kind: BatchFileKind): string {
  return `file-${kind === 'output' ? 'out' : 'err'}-${batchId.slice('batch_'.length)}`;
}

/** The batch and kind a batch file id names, or null for another id. */
export function batchOfFile(fileId: string): { batchId: string; kind: BatchFileKind } | null {
  const match = BATCH_FILE_ID_PATTERN.exec(fileId);
  return match ? { batchId: `batch_${match[2]}`, kind: match[1] === 'out' ? 'output' : 'error' } : null;
}

export interface FileView {
  id: string;
  object: 'file';
  bytes: number;
  created_at: number;
  expires_at: number | null;
  filename: string;
  purpose: FilePurpose | 'batch_output';
  status: 'processed';
  status_details: null;
}

export interface FileListView {
  object: 'list';
  data: FileView[];
  first_id: string | null;
  last_id: string | null;
  has_more: boolean;
}

export interface FileDeletedView {
  id: string;
  object: 'file';
  deleted: true;
}
