import { PAGE_SIZE, PageQueryDto } from './page-query.dto.js';

/** Default and largest page of GET /v1/presets and GET /v1/presets/{slug}/versions (as /v1/keys). */
export const PRESETS_PAGE_SIZE = PAGE_SIZE;

/** Query of the preset lists: `offset` as /v1/keys, and `limit`, which OpenRouter's SDK always sends. */
export class ListPresetsQueryDto extends PageQueryDto {}
