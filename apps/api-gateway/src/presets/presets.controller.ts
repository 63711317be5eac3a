import { Body, Controller, Get, HttpCode, Param, Post, Query, UseGuards, type PipeTransform } from '@nestjs/common';
import {
  ListPresetsQueryDto,
  PRESET_SLUG_PATTERN,
  PRESETS_PAGE_SIZE,
  PresetChatRequestDto,
  type DataEnvelope,
  type PageView,
  type PresetVersionView,
  type PresetView,
  type Principal,
  PresetsCreateVersion,
  PresetsGet,
  PresetsList,
  PresetsVersionGet,
  PresetsVersionsList,
} from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import { RpcClient } from '@gw/messaging';
import { CurrentPrincipal } from '../auth/current-principal.decorator.js';
import { ManagementKeyGuard } from '../auth/management-key.guard.js';
import { PassThroughBody, StrictQuery } from '../input/dto-pipes.js';
import { Answers, Doc, Fails, KeyKinds, PathParam } from '../openapi/api-docs.js';

/** A positive 32-bit version number in a path; anything else names no version. */
const VERSION_PATTERN = /^[1-9]\d{0,9}$/;
const MAX_VERSION = 2 ** 31 - 1;

/**
 * Checked here (a guard, before any pipe) as well as in management so a standard key gets 403
 * (spec §4.6, §5) before its body is looked at, rather than a 400 about the body.
 */
const managementKeyRequired = () =>
  new GatewayError(403, 'Only management keys may manage presets', {
    errorType: 'permission_denied',
    metadata: { reason: 'management_key_required' },
  });

/** A slug to write must be URL-safe: a 400 before the body is looked at (declared before it). */
const NewPresetSlug: PipeTransform<string, string> = {
  transform(slug) {
    if (!PRESET_SLUG_PATTERN.test(slug)) {
      throw GatewayError.badRequest('slug must be URL-safe: 1 to 64 lower-case letters, digits, - and _, starting with a letter or digit');
    }
    return slug;
  },
};

function notFound(slug: string): GatewayError {
  return GatewayError.notFound(`No preset with slug "${slug}"`);
}

/** Presets (spec §2.3, §3.3, §4.6), answered by management. Paths follow OpenRouter's. */
@Controller('v1/presets')
@KeyKinds('management')
@Fails({ 403: 'Only management keys may manage presets' })
@UseGuards(new ManagementKeyGuard(managementKeyRequired))
export class PresetsController {
  constructor(private readonly rpc: RpcClient) {}

  @Post(':slug/chat/completions')
  @Doc('Create or version a preset (spec §4.6)', 'A slug that is not URL-safe is a 400.')
  @PathParam('slug', { type: 'string', pattern: '^[a-z0-9][a-z0-9_-]{0,63}$' }, 'The preset slug')
  @Answers(200, 'PresetAnswer', 'The preset at its new version')
  @Fails({ 404: 'A model, preset or credential the body names is unknown', 409: 'A concurrent version won the race (retryable)' })
  @HttpCode(200)
  async createVersion(
    @CurrentPrincipal() principal: Principal,
    @Param('slug', NewPresetSlug) slug: string,
    @Body(PassThroughBody) body: PresetChatRequestDto,
  ): Promise<DataEnvelope<PresetView>> {
    const data = await this.rpc.send(PresetsCreateVersion, { principal, slug, body });
    return { data };
  }

  @Get()
  @Doc('List presets')
  @Answers(200, 'PresetPageAnswer', 'A page of presets, newest first')
  async list(@CurrentPrincipal() principal: Principal, @Query(StrictQuery) query: ListPresetsQueryDto): Promise<PageView<PresetView>> {
    return this.rpc.send(PresetsList, {
      principal,
      offset: query.offset ?? 0,
      limit: query.limit ?? PRESETS_PAGE_SIZE,
    });
  }

  @Get(':slug')
  @Doc('Get a preset')
  @PathParam('slug', { type: 'string', pattern: '^[a-z0-9][a-z0-9_-]{0,63}$' }, 'The preset slug')
  @Answers(200, 'PresetAnswer', 'The preset')
  @Fails({ 404: 'No preset with that slug' })
  async get(@CurrentPrincipal() principal: Principal, @Param('slug') slug: string): Promise<DataEnvelope<PresetView>> {
    if (!PRESET_SLUG_PATTERN.test(slug)) throw notFound(slug);
    const data = await this.rpc.send(PresetsGet, { principal, slug });
    return { data };
  }

  @Get(':slug/versions')
  @Doc("List a preset's versions")
  @PathParam('slug', { type: 'string', pattern: '^[a-z0-9][a-z0-9_-]{0,63}$' }, 'The preset slug')
  @Answers(200, 'PresetVersionPageAnswer', 'A page of versions, oldest first')
  @Fails({ 404: 'No preset with that slug' })
  async listVersions(
    @CurrentPrincipal() principal: Principal,
    @Param('slug') slug: string,
    @Query(StrictQuery) query: ListPresetsQueryDto,
  ): Promise<PageView<PresetVersionView>> {
    if (!PRESET_SLUG_PATTERN.test(slug)) throw notFound(slug);
    return this.rpc.send(PresetsVersionsList, {
      principal,
      slug,
      offset: query.offset ?? 0,
      limit: query.limit ?? PRESETS_PAGE_SIZE,
    });
  }

  @Get(':slug/versions/:version')
  @Doc('Get one version of a preset')
  @PathParam('slug', { type: 'string', pattern: '^[a-z0-9][a-z0-9_-]{0,63}$' }, 'The preset slug')
  @PathParam('version', { type: 'string', pattern: '^[1-9]\\d{0,9}$' }, 'A positive version number')
  @Answers(200, 'PresetVersionAnswer', 'The version')
  @Fails({ 404: 'No such preset or version' })
  async getVersion(
    @CurrentPrincipal() principal: Principal,
    @Param('slug') slug: string,
    @Param('version') version: string,
  ): Promise<DataEnvelope<PresetVersionView>> {
    if (!PRESET_SLUG_PATTERN.test(slug)) throw notFound(slug);
    if (!VERSION_PATTERN.test(version) || Number(version) > MAX_VERSION) {
      throw GatewayError.notFound(`Preset "${slug}" has no version ${version}`);
    }
    const data = await this.rpc.send(PresetsVersionGet, {
      principal,
      slug,
      version: Number(version),
    });
    return { data };
  }
}
