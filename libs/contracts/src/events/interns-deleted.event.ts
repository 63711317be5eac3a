import { ArrayMaxSize, IsArray, IsString } from 'class-validator';

/** Intern-signing -> its own replicas: these interns are gone (the sign path's cache forgets them). */
export class InternsDeletedEvent {
  @IsArray()
  @ArrayMaxSize(1000)
  @IsString({ each: true })
  internIds!: string[];
}
