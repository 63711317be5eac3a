import { PresetWriterService } from './preset-writer.service.js';
import { PresetsService } from './presets.service.js';

/** The presets feature's providers, registered in AppModule beside PrismaService and the env. */
export const PRESETS_PROVIDERS = [PresetsService, PresetWriterService];
