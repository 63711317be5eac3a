import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  PresetsCreateVersionRequest,
  PresetsGetRequest,
  PresetsListRequest,
  PresetsResolveRequest,
  PresetsVersionGetRequest,
  PresetsVersionsListRequest,
  SUBJECTS,
  type PageView,
  type PresetResolveReply,
  type PresetVersionView,
  type PresetView,
} from '@gw/contracts';
import { PresetWriterService } from './preset-writer.service.js';
import { PresetsService } from './presets.service.js';

@Controller()
export class PresetsController {
  constructor(
    private readonly writer: PresetWriterService,
    private readonly presets: PresetsService,
  ) {}

  @MessagePattern(SUBJECTS.management.presetsCreateVersion)
  createVersion(@Payload() request: PresetsCreateVersionRequest): Promise<PresetView> {
    return this.writer.createVersion(request.principal, request.slug, request.body);
  }

  @MessagePattern(SUBJECTS.management.presetsList)
  list(@Payload() request: PresetsListRequest): Promise<PageView<PresetView>> {
    return this.presets.list(request.principal, request);
  }

  @MessagePattern(SUBJECTS.management.presetsGet)
  get(@Payload() request: PresetsGetRequest): Promise<PresetView> {
    return this.presets.get(request.principal, request.slug);
  }

  @MessagePattern(SUBJECTS.management.presetsVersionsList)
  listVersions(@Payload() request: PresetsVersionsListRequest): Promise<PageView<PresetVersionView>> {
    return this.presets.listVersions(request.principal, request.slug, request);
  }

  @MessagePattern(SUBJECTS.management.presetsVersionGet)
  getVersion(@Payload() request: PresetsVersionGetRequest): Promise<PresetVersionView> {
    return this.presets.getVersion(request.principal, request.slug, request.version);
  }

  @MessagePattern(SUBJECTS.management.presetsResolve)
  resolve(@Payload() request: PresetsResolveRequest): Promise<PresetResolveReply> {
    return this.presets.resolve(request.workspaceId, request.slug);
  }
}
