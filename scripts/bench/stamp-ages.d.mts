import type { StampAge } from "./stack";

export function watchStampAges(): void;
export function pauseStampAges(pause: boolean): void;
export function takeStampAges(): Record<string, StampAge>;
