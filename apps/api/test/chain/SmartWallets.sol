// SPDX-License-Identifier: MIT
// Test contracts for smart-contract wallet sign-in (apps/api/test/smart-wallets.test.ts).
// Compiled once by compile.mjs into SmartWallets.json, which is committed with this file.
pragma solidity 0.8.37;

/// A minimal EIP-1271 account: a signature is valid when the owner EOA signed the hash.
/// The hash is what the verifier passes: for a sign-in, the EIP-191 hash of the message.
contract OwnedWallet {
    bytes4 internal constant MAGIC_VALUE = 0x1626ba7e;
    address public immutable owner;

    constructor(address owner_) {
        owner = owner_;
    }

    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
        if (signature.length != 65) return 0xffffffff;
        bytes32 r = bytes32(signature[0:32]);
        bytes32 s = bytes32(signature[32:64]);
        uint8 v = uint8(signature[64]);
        if (v < 27) v += 27;
        address signer = ecrecover(hash, v, r, s);
        return signer != address(0) && signer == owner ? MAGIC_VALUE : bytes4(0xffffffff);
    }
}

/// CREATE2 factory: an OwnedWallet's address is known before it exists, so the account can
/// sign in counterfactually with an EIP-6492 signature that carries the deploy call.
contract OwnedWalletFactory {
    function deploy(address owner, bytes32 salt) external returns (address wallet) {
        address expected = addressOf(owner, salt);
        if (expected.code.length > 0) return expected;
        wallet = address(new OwnedWallet{salt: salt}(owner));
    }

    function addressOf(address owner, bytes32 salt) public view returns (address) {
        bytes32 codeHash = keccak256(abi.encodePacked(type(OwnedWallet).creationCode, abi.encode(owner)));
        return address(uint160(uint256(keccak256(abi.encodePacked(bytes1(0xff), address(this), salt, codeHash)))));
    }
}
