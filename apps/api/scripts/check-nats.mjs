// CI: is a NATS server with JetStream at NATS_URL (default nats://127.0.0.1:4222)? The bus tests
// (test/events/events.bus.test.ts) publish to it. Prints the server and JetStream's account limits, or
// says plainly what is missing and exits 1.
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';

const url = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
let connection;
try {
  connection = await connect({ servers: url, timeout: 5_000, maxReconnectAttempts: 0 });
} catch (error) {
  console.error(
    `NATS is not reachable at ${url} (${error.message}): the event bus tests need a NATS server with JetStream there`,
  );
  process.exit(1);
}
try {
  const account = await (await jetstreamManager(connection)).getAccountInfo();
  console.log(`NATS ${connection.info?.version} at ${url}, JetStream on (${account.streams} streams)`);
} catch (error) {
  console.error(`NATS at ${url} answers, but JetStream does not (${error.message}): start nats-server with -js`);
  process.exit(1);
} finally {
  await connection.close();
}
