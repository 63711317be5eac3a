export const PRESET_STATUSES = ['active'] as const;
export type PresetStatus = (typeof PRESET_STATUSES)[number];

/** A preset version of spec §2.3 as it goes over the wire. */
export interface PresetVersionView {
  id: string;
  preset_id: string;
  /** 1 for a newly created preset; each new version takes the next integer. */
  version: number;
  /** The persisted request fields (model, temperature, provider, ...). */
  config: Record<string, unknown>;
  system_prompt: string | null;
  creator_id: string;
  created_at: string;
  updated_at: string;
}

/** The preset object of spec §2.3, with its designated version inline. */
export interface PresetView {
  id: string;
  name: string;
  slug: string;
  description: string | null;
  status: PresetStatus;
  status_updated_at: string | null;
  created_at: string;
  updated_at: string;
  creator_user_id: string;
  workspace_id: string;
  designated_version_id: string;
  designated_version: PresetVersionView;
}

/** A page of a list, with the total so clients (OpenRouter's SDK among them) can page on. */
export interface PageView<T> {
  data: T[];
  total_count: number;
}
