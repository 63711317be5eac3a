import { Module } from '@nestjs/common';
import { AuditWriter } from './audit-writer.js';

/** The audit writer alone, for every module that changes management state (no dependencies). */
@Module({ providers: [AuditWriter], exports: [AuditWriter] })
export class AuditWriterModule {}
