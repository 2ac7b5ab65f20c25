// Where each environment lives (seed section 9: production ends in /care/v0, sandbox in /care/v0/sandbox).

export type CareEnvironment = 'production' | 'sandbox';

/** Host of the service when none is given (server variable `host` of the description, decision D-01). */
export const DEFAULT_HOST = 'api.care.example';

export function baseUrlFor(environment: CareEnvironment, host: string = DEFAULT_HOST): string {
  if (environment !== 'production' && environment !== 'sandbox') {
    throw new TypeError(`environment must be 'production' or 'sandbox', not ${JSON.stringify(environment)}`);
  }
  const root = `https://${host}/care/v0`;
  return environment === 'sandbox' ? `${root}/sandbox` : root;
}
