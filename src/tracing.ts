/**
 * OpenTelemetry traces, on when an OTLP endpoint is set (`OTEL_EXPORTER_OTLP_ENDPOINT` or
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`); every other `OTEL_*` setting is the SDK's own
 * (service name, protocol, headers, sampler, batch delay). A span for each HTTP request, named
 * by its operation, and one for each Postgres query beneath it; probes and /metrics are left
 * out. Nothing of it loads when tracing is off.
 */
import { register } from 'node:module';

export interface Tracing {
  /** Exports the spans still buffered and stops. */
  shutdown(): Promise<void>;
}

export function tracingWanted(env: NodeJS.ProcessEnv): boolean {
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) && env.OTEL_SDK_DISABLED !== 'true';
}

const UNTRACED = new Set(['/healthz', '/readyz', '/metrics']);

export async function startTracing(): Promise<Tracing> {
  // ES modules are patched through this loader hook; CommonJS ones (pg) through require.
  register('@opentelemetry/instrumentation/hook.mjs', import.meta.url);
  const [{ NodeSDK }, { HttpInstrumentation }, { PgInstrumentation }] = await Promise.all([
    import('@opentelemetry/sdk-node'),
    import('@opentelemetry/instrumentation-http'),
    import('@opentelemetry/instrumentation-pg'),
  ]);
  const sdk = new NodeSDK({
    serviceName: process.env.OTEL_SERVICE_NAME ?? 'listkeeper',
    instrumentations: [
      new HttpInstrumentation({ ignoreIncomingRequestHook: (req) => UNTRACED.has((req.url ?? '').split('?')[0]!) }),
      // Queries within traced work only: not the pollers' (job queue, outbox, feed sequencer) every second.
      new PgInstrumentation({ requireParentSpan: true }),
    ],
  });
  sdk.start();
  return { shutdown: () => sdk.shutdown() };
}
