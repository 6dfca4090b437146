/** Statuses the generic registry builds itself. */
import { StatusError, type Status } from '../../../machinery/errors/index.js';

/** A Status error that is not a StatusError upstream (ErrorToAPIStatus: reason "", message as is). */
export function unknownError(code: number, message: string): StatusError {
  const status: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: '', code };
  return new StatusError(status);
}
