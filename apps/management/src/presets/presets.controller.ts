import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  PresetsCreateVersionRequest,
  PresetsGetRequest,
  PresetsListRequest,
  PresetsResolveRequest,
  PresetsVersionGetRequest,
  PresetsVersionsListRequest,
  type PageView,
  type PresetResolveReply,
  type PresetVersionView,
  type PresetView,
  PresetsCreateVersion,
  PresetsGet,
  PresetsList,
  PresetsResolve,
  PresetsVersionGet,
  PresetsVersionsList,
} from '@gw/contracts';
import { PresetWriterService } from './preset-writer.service.js';
import { PresetsService } from './presets.service.js';

@Controller()
export class PresetsController {
  constructor(
    private readonly writer: PresetWriterService,
    private readonly presets: PresetsService,
  ) {}

  @MessagePattern(PresetsCreateVersion.subject)
  createVersion(@Payload() request: PresetsCreateVersionRequest): Promise<PresetView> {
    return this.writer.createVersion(request.principal, request.slug, request.body);
  }

  @MessagePattern(PresetsList.subject)
  list(@Payload() request: PresetsListRequest): Promise<PageView<PresetView>> {
    return this.presets.list(request.principal, request);
  }

  @MessagePattern(PresetsGet.subject)
  get(@Payload() request: PresetsGetRequest): Promise<PresetView> {
    return this.presets.get(request.principal, request.slug);
  }

  @MessagePattern(PresetsVersionsList.subject)
  listVersions(@Payload() request: PresetsVersionsListRequest): Promise<PageView<PresetVersionView>> {
    return this.presets.listVersions(request.principal, request.slug, request);
  }

  @MessagePattern(PresetsVersionGet.subject)
  getVersion(@Payload() request: PresetsVersionGetRequest): Promise<PresetVersionView> {
    return this.presets.getVersion(request.principal, request.slug, request.version);
  }

  @MessagePattern(PresetsResolve.subject)
  resolve(@Payload() request: PresetsResolveRequest): Promise<PresetResolveReply> {
    return this.presets.resolve(request.workspaceId, request.slug);
  }
}
