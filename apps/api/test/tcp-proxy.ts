/**
 * A loopback TCP proxy with a switch, put between the service and something it depends on
 * (PostgreSQL, a chain node) to cut or stall it from the outside.
 */
import { createServer, type Server, type Socket, connect as tcpConnect } from 'node:net';

export class TcpProxy {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private mode: 'forward' | 'stall' = 'forward';
  port = 0;

  constructor(private readonly target: { host: string; port: number }) {}

  async listen(): Promise<void> {
    if (this.server) return;
    const server = createServer((client) => {
      this.track(client);
      if (this.mode === 'stall') return; // accepted, never answered
      const upstream = this.track(tcpConnect(this.target.port, this.target.host));
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as { port: number }).port;
    this.server = server;
  }

  /** Destroys every connection and stops accepting: connects are refused. */
  async cut(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    this.dropAll();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Destroys every connection, then accepts new ones and never answers them. */
  async stall(): Promise<void> {
    this.mode = 'stall';
    this.dropAll();
    await this.listen();
  }

  async restore(): Promise<void> {
    this.mode = 'forward';
    this.dropAll();
    await this.listen();
  }

  close = () => this.cut();

  private track(socket: Socket): Socket {
    this.sockets.add(socket);
    socket.on('error', () => socket.destroy());
    socket.on('close', () => this.sockets.delete(socket));
    return socket;
  }

  private dropAll() {
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
  }
}
