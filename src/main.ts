/**
 * The process entry. Tracing starts first when an OTLP endpoint is set: its instrumentations
 * patch http and pg as they load, so it comes before anything imports them; then the service
 * (`serve.ts`, the composition root).
 */
import { startTracing, tracingWanted } from './tracing.js';

try {
  const tracing = tracingWanted(process.env) ? await startTracing() : undefined;
  const { serve } = await import('./serve.js');
  await serve(tracing ? { onStop: () => tracing.shutdown() } : {});
} catch (err) {
  process.stderr.write(`listkeeper could not start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
