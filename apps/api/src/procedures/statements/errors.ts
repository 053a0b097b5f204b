/** The domain errors of the statement routes that other routes do not have (CONTRACT.md, Version 4). */
import { DomainError } from '@signal/core';

/** No signal of the provider has this id (an update naming an unknown signal, a read of one). */
export const signalNotFound = (providerId: number, signalId: string) =>
  new DomainError('SIGNAL_NOT_FOUND', `provider ${providerId} has no signal ${JSON.stringify(signalId)}`);

/** An update, close or cancel of a signal that is no longer open. */
export const signalClosed = (signalId: string, status: 'closed' | 'cancelled' | 'expired') =>
  new DomainError('SIGNAL_CLOSED', `signal ${JSON.stringify(signalId)} is ${status}: it takes no more statements`);
