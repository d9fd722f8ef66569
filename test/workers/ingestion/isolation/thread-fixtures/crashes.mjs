// An extraction thread that starts, answers the readiness probe, and then crashes on every task.
export const ping = () => "pong";
export const extract = () => process.exit(7);
export const chunk = () => process.exit(7);
