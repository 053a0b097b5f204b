/**
 * A real local EVM for the smart-wallet tests: anvil from the `@foundry-rs/anvil` npm package
 * (its platform package ships the binary; nothing downloads), started on a free port of
 * 127.0.0.1, plus the committed contracts of SmartWallets.sol deployed on it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type Abi,
  type Address,
  createPublicClient,
  createWalletClient,
  getAddress,
  type Hex,
  http,
  type PublicClient,
  type WalletClient,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';

const here = dirname(fileURLToPath(import.meta.url));

/** The path of the anvil binary that `@foundry-rs/anvil` installed for this platform. */
export function anvilBinary(): string {
  const require = createRequire(import.meta.url);
  const wrapper = require.resolve('@foundry-rs/anvil/package.json');
  const platform = `@foundry-rs/anvil-${process.platform === 'win32' ? 'win32' : process.platform}-${process.arch === 'x64' ? 'amd64' : process.arch}`;
  const binary = process.platform === 'win32' ? 'anvil.exe' : 'anvil';
  return createRequire(wrapper).resolve(`${platform}/bin/${binary}`);
}

export interface Anvil {
  url: string;
  port: number;
  /** The node's first funded development account. */
  deployer: WalletClient;
  client: PublicClient;
  /** Kills the node (SIGKILL) and waits for it to exit. */
  stop(): Promise<void>;
}

// anvil's first development account, from its default mnemonic: a well-known test key.
const DEPLOYER_KEY: Hex = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';

export async function startAnvil(): Promise<Anvil> {
  const child: ChildProcess = spawn(anvilBinary(), ['--host', '127.0.0.1', '--port', '0', '--chain-id', '31337'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`anvil did not start:\n${output}`)), 20_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /Listening on 127\.0\.0\.1:(\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`anvil exited with ${code}:\n${output}`));
    });
  });
  // Keep draining its output so a full pipe never blocks the node.
  child.stdout?.resume();
  const url = `http://127.0.0.1:${port}`;
  const chain = { ...foundry, rpcUrls: { default: { http: [url] } } };
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    url,
    port,
    deployer: createWalletClient({ account: privateKeyToAccount(DEPLOYER_KEY), chain, transport: http(url) }),
    client: createPublicClient({ chain, transport: http(url) }),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

interface CompiledContract {
  abi: Abi;
  bytecode: Hex;
}

export const contracts = JSON.parse(readFileSync(join(here, 'SmartWallets.json'), 'utf8')).contracts as {
  OwnedWallet: CompiledContract;
  OwnedWalletFactory: CompiledContract;
};

/** Deploys a contract from the deployer account and returns its address once mined. */
export async function deploy(anvil: Anvil, contract: CompiledContract, args: unknown[] = []): Promise<Address> {
  const account = anvil.deployer.account;
  if (!account) throw new Error('deployer has no account');
  const hash = await anvil.deployer.deployContract({
    abi: contract.abi,
    bytecode: contract.bytecode,
    args,
    account,
    chain: anvil.deployer.chain,
  });
  const receipt = await anvil.client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
  if (!receipt.contractAddress) throw new Error('no contract deployed');
  return getAddress(receipt.contractAddress);
}
