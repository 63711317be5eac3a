import { stampPacket, type HitStamp } from './cached-answer.js';

/** A front door's packet as its client's bytes: a chat chunk becomes a `data:` line; Messages and Responses packets are framed already. */
export type PacketFrame = (packet: string) => string;

/** OpenAI's chat-completions SSE line for one serialised chunk. */
export const SSE_DATA_FRAME: PacketFrame = (packet) => `data: ${packet}\n\n`;

/** Packets that are their client's bytes already (Anthropic's and the Responses API's SSE events). */
export const ALREADY_FRAMED: PacketFrame = (packet) => packet;

/** A stored stream's packets as the hit's client bytes, in its door's framing: what inference and the gateway replay. */
export function replayFrames(packets: readonly string[], stamp: HitStamp, frame: PacketFrame): string[] {
  return packets.map((packet) => frame(stampPacket(packet, stamp)));
}
