package rpc

import (
	"context"

	"github.com/btcnode/btcd/wire"
)

// Backend supplies the state behind the chain, mempool, mining and network
// methods. Each area is a struct of function fields the daemon fills in; a
// nil area or a nil function makes the methods that need it answer -32601
// "Method not found", so areas can be wired one at a time. The functions
// may be called concurrently from several requests. They may return *Error
// (or the sentinels in errors.go, wrapped or not) to choose bitcoind's code
// and message; other errors become -1 with their text.
type Backend struct {
	Chain   *ChainBackend
	Mempool *MempoolBackend
	Mining  *MiningBackend
	Net     *NetBackend
	Test    *TestBackend
	// Btcd serves btcd's extension methods (btcdextra.go).
	Btcd *BtcdBackend
	// ZMQNotifications lists the active ZMQ publishers for
	// getzmqnotifications (an empty list when it is nil).
	ZMQNotifications func() []ZMQEndpoint
}

// BtcdBackend serves the btcd-only methods (getinfo, getheaders,
// getcurrentnet) that btcd's clients (btcwallet, lnd's btcd backend,
// rpcclient) call.
type BtcdBackend struct {
	// Info fills getinfo's fields except version, which the server sets
	// to the btcd release whose API it answers (BtcdAPIVersion).
	Info func() (*BtcdInfo, error)
	// LocateHeaders returns the active chain's headers after the first
	// locator hash it knows (the genesis block when none), up to stop
	// or 2000 headers, as a getheaders P2P message would be answered.
	LocateHeaders func(locator []wire.Hash, stop wire.Hash) ([]wire.BlockHeader, error)
	// Net is the network's P2P message magic (getcurrentnet).
	Net uint32
}

// ChainBackend serves the blockchain methods and getrawtransaction.
type ChainBackend struct {
	// BestBlock returns the active chain tip's hash and height.
	BestBlock func() (wire.Hash, int32, error)
	// BlockHash returns the active chain's block at height, or
	// ErrBlockHeightOutOfRange.
	BlockHash func(height int32) (wire.Hash, error)
	// BlockHeader returns a known header (any branch) and its index
	// data, or ErrBlockNotFound.
	BlockHeader func(hash wire.Hash) (*wire.BlockHeader, *BlockHeaderInfo, error)
	// Block returns a stored block, or ErrBlockNotFound (or -1 "Block
	// not available (pruned data)").
	Block func(hash wire.Hash) (*wire.MsgBlock, error)
	// BlockPrevOuts optionally returns, for every non-coinbase input of
	// the block in order (transaction by transaction), the output it
	// spent, for getblock verbosity 2/3 fees and prevouts. Nil or a nil
	// result omits them.
	BlockPrevOuts func(hash wire.Hash) ([][]PrevOut, error)
	// BlockchainInfo fills the getblockchaininfo result.
	BlockchainInfo func() (*BlockchainInfo, error)
	// ChainTips lists the known tips.
	ChainTips func() ([]ChainTip, error)
	// ChainTxStats computes statistics over nblocks blocks ending at
	// hash (nblocks -1: the default window of one month of blocks; 0 is
	// an empty window). The block must be in the active chain.
	ChainTxStats func(nblocks int32, hash wire.Hash) (*ChainTxStats, error)
	// BlockStats computes all statistics of a block.
	BlockStats func(hash wire.Hash) (*BlockStats, error)
	// BlockFilter returns the block's filter of the given type.
	BlockFilter func(hash wire.Hash, filterType string) (*BlockFilter, error)
	// TxOut returns an unspent output, nil when spent or unknown.
	TxOut func(op wire.OutPoint, includeMempool bool) (*TxOutInfo, error)
	// TxOutProof returns a serialized merkle block proving txids are in
	// the block (blockHash nil: find it by the txindex or UTXO set).
	TxOutProof func(txids []wire.Hash, blockHash *wire.Hash) ([]byte, error)
	// VerifyTxOutProof checks a proof against the active chain and
	// returns the txids it commits to.
	VerifyTxOutProof func(proof []byte) ([]wire.Hash, error)
	// TxOutSetInfo answers gettxoutsetinfo: statistics of the current
	// UTXO set, or with a coinstats index of any block the query names.
	TxOutSetInfo func(q TxOutSetQuery) (*TxOutSetInfo, error)
	// DumpTxOutSet writes a UTXO snapshot (dumptxoutset), rolling the
	// chain back temporarily when the request names an earlier block.
	DumpTxOutSet func(req DumpTxOutSetRequest) (*DumpTxOutSetResult, error)
	// PreciousBlock, InvalidateBlock and ReconsiderBlock change block
	// preference and validity.
	PreciousBlock   func(hash wire.Hash) error
	InvalidateBlock func(hash wire.Hash) error
	ReconsiderBlock func(hash wire.Hash) error
	// PruneBlockchain prunes up to height and returns the height of the
	// last pruned block.
	PruneBlockchain func(height int64) (int64, error)
	// VerifyChain checks the last nblocks (0: all) at checkLevel (0-4).
	VerifyChain func(checkLevel, nblocks int32) (bool, error)
	// TxPrevOuts optionally returns the outputs a confirmed transaction
	// of the given block spent, one per input, for getrawtransaction
	// verbosity 2 (nil: omit fee and prevouts, as bitcoind does for
	// mempool transactions and blocks without undo data).
	TxPrevOuts func(tx *wire.MsgTx, blockHash wire.Hash) ([]PrevOut, error)
	// IndexInfo reports the optional indexes by getindexinfo name
	// ("txindex", "basic block filter index").
	IndexInfo func() (map[string]IndexInfo, error)
	// DeploymentInfo reports the soft-fork deployments' state at a block.
	DeploymentInfo func(hash wire.Hash) (*DeploymentInfo, error)
	// Transaction finds a transaction (mempool, txindex, or the given
	// block), or ErrTxNotFound.
	Transaction func(txid wire.Hash, blockHash *wire.Hash) (*TxLookup, error)
	// ScanUTXOs visits every output of the confirmed UTXO set at one
	// chain tip (scantxoutset) and returns those whose script match
	// accepts, with the tip and the number of outputs visited. It calls
	// progress now and then with the fraction done (0 to 1), and stops
	// when ctx is done, returning what it found so far together with
	// ctx's error. It calls match from one goroutine at a time.
	ScanUTXOs func(ctx context.Context, match func(pkScript []byte) bool, progress func(done float64)) (*UTXOScan, error)
	// Coins looks the outputs ops name up, one result per op (nil when
	// unknown or spent), in the UTXO set and, with includeMempool, among
	// the outputs of mempool transactions as Core's CCoinsViewMemPool
	// does: a mempool transaction's output is found even when another
	// mempool transaction spends it (signing a replacement needs it).
	// Height is the confirming block's (0 in the mempool).
	Coins func(ops []wire.OutPoint, includeMempool bool) ([]*PrevOut, error)
	// BlockFilters calls visit with the hash and serialized filter of
	// each active-chain block from start to stop (at most 1000 heights),
	// in height order (scanblocks). Blocks the index has not reached are
	// left out. Nil when the filter index is off.
	BlockFilters func(ctx context.Context, filterType string, start, stop int32, visit func(hash wire.Hash, filter []byte) error) error
}

// TxOutSetQuery is what a gettxoutsetinfo call asks for.
type TxOutSetQuery struct {
	// HashType is "hash_serialized_3", "muhash" or "none".
	HashType string
	// UseIndex is use_index: answer from the coinstats index when the
	// node has one.
	UseIndex bool
	// ForBlock is set when hash_or_height was given. It resolves the
	// block with bitcoind's errors for a height out of range or a
	// malformed hash; the backend calls it only after its own checks, so
	// that the errors come in bitcoind's order (no index first).
	ForBlock func() (wire.Hash, error)
}

// PrevOut is a spent output, for fee and prevout reporting.
type PrevOut struct {
	Generated bool
	Height    int32
	Value     int64
	PkScript  []byte
}

// TxOutInfo is an unspent output for gettxout.
type TxOutInfo struct {
	BestBlock     wire.Hash
	Confirmations int64
	Value         int64
	PkScript      []byte
	Coinbase      bool
}

// TxLookup is a transaction found for getrawtransaction.
type TxLookup struct {
	Tx            *wire.MsgTx
	BlockHash     *wire.Hash // nil when in the mempool
	Confirmations int64
	BlockTime     int64
	InActiveChain *bool     // set when the caller named a block
	PrevOuts      []PrevOut // optional, one per input, for verbosity 2
}

// MempoolBackend serves the mempool methods, transaction submission and
// fee estimation.
type MempoolBackend struct {
	// Info fills the getmempoolinfo result.
	Info func() (*MempoolInfo, error)
	// TxIDs lists the pool's transactions and its sequence number.
	TxIDs func() ([]wire.Hash, uint64, error)
	// Entry returns one entry, or ErrNotInMempool.
	Entry func(txid wire.Hash) (*MempoolEntry, error)
	// Ancestors and Descendants list an entry's in-pool relatives.
	Ancestors   func(txid wire.Hash) ([]wire.Hash, error)
	Descendants func(txid wire.Hash) ([]wire.Hash, error)
	// Send validates and relays a transaction; maxFeeRate is in
	// sat/kvB (0: no limit).
	Send func(tx *wire.MsgTx, maxFeeRate int64) (wire.Hash, error)
	// TestAccept checks transactions (a package when several) without
	// adding them.
	TestAccept func(txs []*wire.MsgTx, maxFeeRate int64) ([]MempoolAcceptResult, error)
	// SpentBy names the pool transaction spending op, if any
	// (gettxspendingprevout).
	SpentBy func(op wire.OutPoint) (wire.Hash, bool, error)
	// Save writes the pool to its file and returns the file's path
	// (savemempool).
	Save func() (string, error)
	// EstimateSmartFee estimates a fee rate for confirmation within
	// confTarget blocks ("unset", "economical" or "conservative").
	EstimateSmartFee func(confTarget int64, mode string) (*EstimateSmartFeeResult, error)
	// EstimateRawFee answers estimaterawfee: one estimate per horizon
	// that tracks confTarget (1 to 1008), shortest horizon first, with
	// threshold (0 to 1) the success rate a fee-rate range must reach.
	EstimateRawFee func(confTarget int, threshold float64) ([]RawFeeHorizon, error)
	// SubmitPackage checks the package's topology, evaluates it and
	// relays what enters (submitpackage); maxFeeRate is in sat/kvB (0: no
	// limit). The members are decoded and past the burn check.
	SubmitPackage func(txs []*wire.MsgTx, maxFeeRate int64) (*SubmitPackageResult, error)
	// Prioritise adds delta satoshis to txid's fee as mining and policy
	// see it (prioritisetransaction).
	Prioritise func(txid wire.Hash, delta int64) error
	// Prioritised lists the fee deltas (getprioritisedtransactions).
	Prioritised func() ([]PrioritisedTx, error)
	// Orphans lists the orphan pool (getorphantxs).
	Orphans func() ([]OrphanTx, error)
	// Transactions lists the pool's transactions, parents before
	// children (getdescriptoractivity).
	Transactions func() ([]*wire.MsgTx, error)
	// Import loads a mempool.dat file into the pool (importmempool,
	// importmempool.go), with bitcoind's -10 error during initial block
	// download and -1 "Unable to import mempool file, see debug log for
	// details." when the file cannot be read.
	Import func(path string, opts ImportMempoolOptions) error
}

// MiningBackend serves the mining and generating methods.
type MiningBackend struct {
	// BlockTemplate answers getblocktemplate; the handler has checked
	// the mode and, in template mode, the segwit rule. It may return nil
	// for proposal mode's accepted result.
	BlockTemplate func(req *TemplateRequest) (any, error)
	// MiningInfo fills the getmininginfo result.
	MiningInfo func() (*MiningInfo, error)
	// NetworkHashPS estimates hashes per second over nblocks ending at
	// height (-1: tip).
	NetworkHashPS func(nblocks, height int64) (float64, error)
	// SubmitBlock submits a block and returns "" when accepted or
	// bitcoind's BIP22 reason ("duplicate", "inconclusive", "rejected",
	// or the validation reason).
	SubmitBlock func(block *wire.MsgBlock) (string, error)
	// SubmitHeader accepts a header whose parent is known.
	SubmitHeader func(header *wire.BlockHeader) error
	// Generate mines n blocks paying to script (regtest) trying at most
	// maxTries nonces.
	Generate func(n int64, script []byte, maxTries uint64) ([]wire.Hash, error)
	// GenerateBlock mines one block paying to script with exactly txs,
	// returning its hash and, when submit is false, its serialization.
	GenerateBlock func(script []byte, txs []*wire.MsgTx, submit bool) (wire.Hash, []byte, error)
}

// NetBackend serves the network methods.
type NetBackend struct {
	AddNode func(node, command string, v2transport bool) error
	// V2Transport reports the node's -v2transport setting, addnode's
	// default for its v2transport argument; nil means false.
	V2Transport func() bool
	// AddConnection opens a test outbound connection of a Core
	// connection type (regtest's addconnection); at capacity it returns
	// ErrClientNodeCapacityReached.
	AddConnection    func(address, connType string, v2transport bool) error
	ClearBanned      func() error
	DisconnectNode   func(address string, nodeID int64, byID bool) error
	AddedNodeInfo    func(node string) ([]AddedNodeInfo, error)
	ConnectionCount  func() (int, error)
	NetTotals        func() (*NetTotals, error)
	NetworkInfo      func() (*NetworkInfo, error)
	NodeAddresses    func(count int, network string) ([]NodeAddress, error)
	PeerInfo         func() ([]PeerInfo, error)
	ListBanned       func() ([]BannedEntry, error)
	Ping             func() error
	SetBan           func(subnet, command string, banTime int64, absolute bool) error
	SetNetworkActive func(active bool) (bool, error)
	// AddPeerAddress adds an address to the address manager as if it
	// announced itself, with tried also to the tried table
	// (addpeeraddress); an address that does not parse is success false
	// without an error text.
	AddPeerAddress func(address string, port uint16, tried bool) (*AddPeerAddressResult, error)
	// SendMsgToPeer queues a message of any type and payload to the
	// connected peer id (sendmsgtopeer); an error means no such peer.
	SendMsgToPeer func(id int64, cmd string, payload []byte) error
	// RawAddrMan lists the address manager's tables by table name
	// ("new", "tried") and "bucket/position" (getrawaddrman).
	RawAddrMan func() (map[string]map[string]RawAddrManEntry, error)
	// AddrManInfo counts the addresses per network and in total
	// ("all_networks") (getaddrmaninfo).
	AddrManInfo func() (map[string]AddrManCounts, error)
	// FetchBlock asks a peer for a block whose header is known
	// (getblockfrompeer), with bitcoind's -1 errors ("Block header
	// missing", "Block already downloaded", "Peer does not exist", ...).
	FetchBlock func(hash wire.Hash, peerID int64) error
}

// LoggingControl lets the "logging" method read and change debug logging
// the way bitcoind's does: by logging category ("net", "mempool", ...),
// each either on or off.
type LoggingControl struct {
	// Categories returns every category the daemon knows, with whether
	// debug logging is on for it.
	Categories func() map[string]bool
	// SetCategory turns debug logging for one of Categories' names on or
	// off; the method expands "all" itself.
	SetCategory func(category string, on bool) error
}
