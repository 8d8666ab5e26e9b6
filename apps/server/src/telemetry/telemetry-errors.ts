import { BatonError } from '@baton/core'

/** An `OTEL_*` setting the server cannot honour (a protocol it does not export with, say). */
export class TelemetrySettingError extends BatonError {
  override name = 'TelemetrySettingError'

  constructor(options: { name: string; value: string; expected: string }) {
    super(
      'TELEMETRY_SETTING_INVALID',
      `${options.name} is "${options.value}"; expected ${options.expected}.`,
      { details: { setting: options.name, value: options.value } },
    )
  }
}
