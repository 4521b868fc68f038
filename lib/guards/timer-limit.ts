// setTimeout fires at once for a delay past 2^31 - 1 ms, so no deadline or timeout may be longer.

/** The longest delay a timer holds: 2,147,483,647 ms (about 24.8 days). */
export const MAX_TIMER_MS = 2_147_483_647;
