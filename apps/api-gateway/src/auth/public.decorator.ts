import { SetMetadata } from '@nestjs/common';

export const IS_PUBLIC = 'gw:isPublic';

/** Marks a route that needs no API key (health probes only). */
export const Public = () => SetMetadata(IS_PUBLIC, true);
