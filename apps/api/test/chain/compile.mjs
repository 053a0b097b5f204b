/**
 * Compiles SmartWallets.sol with solc-js (the `solc` npm package, no native compiler) into
 * SmartWallets.json: each contract's ABI and creation bytecode. Run once after editing the
 * source (`node test/chain/compile.mjs` in apps/api); the output is committed, so the tests
 * never compile. Settings are fixed, so the same source gives the same bytecode.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import solc from 'solc';

const here = dirname(fileURLToPath(import.meta.url));
const source = readFileSync(join(here, 'SmartWallets.sol'), 'utf8');
const input = {
  language: 'Solidity',
  sources: { 'SmartWallets.sol': { content: source } },
  settings: {
    optimizer: { enabled: true, runs: 200 },
    evmVersion: 'cancun',
    metadata: { bytecodeHash: 'none' },
    outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
  },
};
const output = JSON.parse(solc.compile(JSON.stringify(input)));
const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
if (errors.length > 0) {
  for (const e of errors) console.error(e.formattedMessage);
  process.exit(1);
}
const contracts = {};
for (const [name, contract] of Object.entries(output.contracts['SmartWallets.sol'])) {
  contracts[name] = { abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}` };
}
const compiled = { compiler: solc.version(), contracts };
writeFileSync(join(here, 'SmartWallets.json'), `${JSON.stringify(compiled, null, 2)}\n`);
console.log(`SmartWallets.json: ${Object.keys(contracts).join(', ')} (solc ${solc.version()})`);
