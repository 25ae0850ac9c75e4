package rpc

import "encoding/json"

// Result shapes of the chain, mempool, mining and network methods, with
// bitcoind's JSON field names and types (as of Bitcoin Core 28/29). BTC
// amounts are json.Number values made by FormatBTC so they print with eight
// decimals; the daemon fills these and the handlers return them as given.

// FormatBTC renders satoshis as a BTC JSON number with eight decimals.
func FormatBTC(sat int64) json.Number { return formatBTC(sat) }

// BlockchainInfo is the getblockchaininfo result.
type BlockchainInfo struct {
	Chain                string   `json:"chain"`
	Blocks               int32    `json:"blocks"`
	Headers              int32    `json:"headers"`
	BestBlockHash        string   `json:"bestblockhash"`
	Bits                 string   `json:"bits"`
	Target               string   `json:"target"`
	Difficulty           Float    `json:"difficulty"`
	Time                 int64    `json:"time"`
	MedianTime           int64    `json:"mediantime"`
	VerificationProgress Float    `json:"verificationprogress"`
	InitialBlockDownload bool     `json:"initialblockdownload"`
	ChainWork            string   `json:"chainwork"`
	SizeOnDisk           uint64   `json:"size_on_disk"`
	Pruned               bool     `json:"pruned"`
	PruneHeight          *int32   `json:"pruneheight,omitempty"`
	AutomaticPruning     *bool    `json:"automatic_pruning,omitempty"`
	PruneTargetSize      *uint64  `json:"prune_target_size,omitempty"`
	SignetChallenge      string   `json:"signet_challenge,omitempty"`
	Warnings             []string `json:"warnings"`
}

// BlockHeaderInfo is what the chain backend knows about a block besides its
// header; the handlers build getblockheader/getblock results from it.
type BlockHeaderInfo struct {
	Height        int32
	Confirmations int64 // -1 when not in the active chain
	MedianTime    int64
	ChainWork     string // 64 hex digits
	NTx           int
	NextHash      string // "" when none
}

// BlockHeaderResult is the verbose getblockheader result.
type BlockHeaderResult struct {
	Hash              string `json:"hash"`
	Confirmations     int64  `json:"confirmations"`
	Height            int32  `json:"height"`
	Version           int32  `json:"version"`
	VersionHex        string `json:"versionHex"`
	MerkleRoot        string `json:"merkleroot"`
	Time              uint32 `json:"time"`
	MedianTime        int64  `json:"mediantime"`
	Nonce             uint32 `json:"nonce"`
	Bits              string `json:"bits"`
	Target            string `json:"target"`
	Difficulty        Float  `json:"difficulty"`
	ChainWork         string `json:"chainwork"`
	NTx               int    `json:"nTx"`
	PreviousBlockHash string `json:"previousblockhash,omitempty"`
	NextBlockHash     string `json:"nextblockhash,omitempty"`
}

// BlockResult is the getblock result for verbosity 1 (Tx holds txid
// strings) and 2/3 (Tx holds *TxResult).
type BlockResult struct {
	Hash              string `json:"hash"`
	Confirmations     int64  `json:"confirmations"`
	Height            int32  `json:"height"`
	Version           int32  `json:"version"`
	VersionHex        string `json:"versionHex"`
	MerkleRoot        string `json:"merkleroot"`
	Time              uint32 `json:"time"`
	MedianTime        int64  `json:"mediantime"`
	Nonce             uint32 `json:"nonce"`
	Bits              string `json:"bits"`
	Target            string `json:"target"`
	Difficulty        Float  `json:"difficulty"`
	ChainWork         string `json:"chainwork"`
	NTx               int    `json:"nTx"`
	PreviousBlockHash string `json:"previousblockhash,omitempty"`
	NextBlockHash     string `json:"nextblockhash,omitempty"`
	StrippedSize      int    `json:"strippedsize"`
	Size              int    `json:"size"`
	Weight            int64  `json:"weight"`
	Tx                []any  `json:"tx"`
}

// ChainTip is one getchaintips entry.
type ChainTip struct {
	Height    int32  `json:"height"`
	Hash      string `json:"hash"`
	BranchLen int32  `json:"branchlen"`
	Status    string `json:"status"` // active, valid-fork, valid-headers, headers-only, invalid
}

// ChainTxStats is the getchaintxstats result.
type ChainTxStats struct {
	Time                   int64  `json:"time"`
	TxCount                *int64 `json:"txcount,omitempty"`
	WindowFinalBlockHash   string `json:"window_final_block_hash"`
	WindowFinalBlockHeight int32  `json:"window_final_block_height"`
	WindowBlockCount       int32  `json:"window_block_count"`
	WindowInterval         *int64 `json:"window_interval,omitempty"`
	WindowTxCount          *int64 `json:"window_tx_count,omitempty"`
	TxRate                 *Float `json:"txrate,omitempty"`
}

// BlockStats is the getblockstats result; the handler keeps only the
// requested stats. Amounts are in satoshis, as bitcoind reports them.
type BlockStats struct {
	AvgFee             int64    `json:"avgfee"`
	AvgFeeRate         int64    `json:"avgfeerate"`
	AvgTxSize          int64    `json:"avgtxsize"`
	BlockHash          string   `json:"blockhash"`
	FeeRatePercentiles [5]int64 `json:"feerate_percentiles"`
	Height             int32    `json:"height"`
	Ins                int64    `json:"ins"`
	MaxFee             int64    `json:"maxfee"`
	MaxFeeRate         int64    `json:"maxfeerate"`
	MaxTxSize          int64    `json:"maxtxsize"`
	MedianFee          int64    `json:"medianfee"`
	MedianTime         int64    `json:"mediantime"`
	MedianTxSize       int64    `json:"mediantxsize"`
	MinFee             int64    `json:"minfee"`
	MinFeeRate         int64    `json:"minfeerate"`
	MinTxSize          int64    `json:"mintxsize"`
	Outs               int64    `json:"outs"`
	Subsidy            int64    `json:"subsidy"`
	SwTotalSize        int64    `json:"swtotal_size"`
	SwTotalWeight      int64    `json:"swtotal_weight"`
	SwTxs              int64    `json:"swtxs"`
	Time               int64    `json:"time"`
	TotalOut           int64    `json:"total_out"`
	TotalSize          int64    `json:"total_size"`
	TotalWeight        int64    `json:"total_weight"`
	TotalFee           int64    `json:"totalfee"`
	Txs                int64    `json:"txs"`
	UTXOIncrease       int64    `json:"utxo_increase"`
	UTXOSizeInc        int64    `json:"utxo_size_inc"`
	UTXOIncreaseActual int64    `json:"utxo_increase_actual"`
	UTXOSizeIncActual  int64    `json:"utxo_size_inc_actual"`
}

// BlockFilter is the getblockfilter result.
type BlockFilter struct {
	Filter string `json:"filter"`
	Header string `json:"header"`
}

// ScriptPubKey is a decoded output script.
type ScriptPubKey struct {
	Asm     string `json:"asm"`
	Desc    string `json:"desc,omitempty"`
	Hex     string `json:"hex"`
	Address string `json:"address,omitempty"`
	Type    string `json:"type"`
}

// TxOutResult is the gettxout result.
type TxOutResult struct {
	BestBlock     string       `json:"bestblock"`
	Confirmations int64        `json:"confirmations"`
	Value         json.Number  `json:"value"`
	ScriptPubKey  ScriptPubKey `json:"scriptPubKey"`
	Coinbase      bool         `json:"coinbase"`
}

// TxOutSetInfo is the gettxoutsetinfo result, in bitcoind's field order.
// A scan of the UTXO set fills Transactions and DiskSize; an answer from
// the coinstats index fills TotalUnspendableAmount and BlockInfo instead.
type TxOutSetInfo struct {
	Height                 int32              `json:"height"`
	BestBlock              string             `json:"bestblock"`
	TxOuts                 int64              `json:"txouts"`
	BogoSize               int64              `json:"bogosize"`
	HashSerialized3        string             `json:"hash_serialized_3,omitempty"`
	MuHash                 string             `json:"muhash,omitempty"`
	TotalAmount            json.Number        `json:"total_amount"`
	Transactions           *int64             `json:"transactions,omitempty"`
	DiskSize               *int64             `json:"disk_size,omitempty"`
	TotalUnspendableAmount json.Number        `json:"total_unspendable_amount,omitempty"`
	BlockInfo              *TxOutSetBlockInfo `json:"block_info,omitempty"`
}

// TxOutSetBlockInfo is gettxoutsetinfo's block_info: what the block
// itself changed (BTC amounts).
type TxOutSetBlockInfo struct {
	PrevoutSpent         json.Number          `json:"prevout_spent"`
	Coinbase             json.Number          `json:"coinbase"`
	NewOutputsExCoinbase json.Number          `json:"new_outputs_ex_coinbase"`
	Unspendable          json.Number          `json:"unspendable"`
	Unspendables         TxOutSetUnspendables `json:"unspendables"`
}

// TxOutSetUnspendables splits a block's unspendable amount by cause.
type TxOutSetUnspendables struct {
	GenesisBlock     json.Number `json:"genesis_block"`
	BIP30            json.Number `json:"bip30"`
	Scripts          json.Number `json:"scripts"`
	UnclaimedRewards json.Number `json:"unclaimed_rewards"`
}

// MempoolInfo is the getmempoolinfo result.
type MempoolInfo struct {
	Loaded              bool        `json:"loaded"`
	Size                int64       `json:"size"`
	Bytes               int64       `json:"bytes"`
	Usage               int64       `json:"usage"`
	TotalFee            json.Number `json:"total_fee"`
	MaxMempool          int64       `json:"maxmempool"`
	MempoolMinFee       json.Number `json:"mempoolminfee"`
	MinRelayTxFee       json.Number `json:"minrelaytxfee"`
	IncrementalRelayFee json.Number `json:"incrementalrelayfee"`
	UnbroadcastCount    int64       `json:"unbroadcastcount"`
	FullRBF             bool        `json:"fullrbf"`
}

// MempoolFees is the fees object of a mempool entry (BTC).
type MempoolFees struct {
	Base       json.Number `json:"base"`
	Modified   json.Number `json:"modified"`
	Ancestor   json.Number `json:"ancestor"`
	Descendant json.Number `json:"descendant"`
}

// MempoolEntry is the getmempoolentry result and the verbose getrawmempool
// value.
type MempoolEntry struct {
	VSize             int64       `json:"vsize"`
	Weight            int64       `json:"weight"`
	Time              int64       `json:"time"`
	Height            int32       `json:"height"`
	DescendantCount   int64       `json:"descendantcount"`
	DescendantSize    int64       `json:"descendantsize"`
	AncestorCount     int64       `json:"ancestorcount"`
	AncestorSize      int64       `json:"ancestorsize"`
	WTxID             string      `json:"wtxid"`
	Fees              MempoolFees `json:"fees"`
	Depends           []string    `json:"depends"`
	SpentBy           []string    `json:"spentby"`
	BIP125Replaceable bool        `json:"bip125-replaceable"`
	Unbroadcast       bool        `json:"unbroadcast"`
}

// MempoolAcceptFees is the fees object of a testmempoolaccept entry.
type MempoolAcceptFees struct {
	Base              json.Number `json:"base"`
	EffectiveFeeRate  json.Number `json:"effective-feerate"`
	EffectiveIncludes []string    `json:"effective-includes"`
}

// MempoolAcceptResult is one testmempoolaccept entry.
type MempoolAcceptResult struct {
	TxID         string             `json:"txid"`
	WTxID        string             `json:"wtxid"`
	PackageError string             `json:"package-error,omitempty"`
	Allowed      *bool              `json:"allowed,omitempty"`
	VSize        int64              `json:"vsize,omitempty"`
	Fees         *MempoolAcceptFees `json:"fees,omitempty"`
	RejectReason string             `json:"reject-reason,omitempty"`
	// RejectDetails is the whole validation state ("reason, detail"),
	// given with every reject-reason except missing inputs.
	RejectDetails string `json:"reject-details,omitempty"`
}

// EstimateSmartFeeResult is the estimatesmartfee result.
type EstimateSmartFeeResult struct {
	FeeRate json.Number `json:"feerate,omitempty"` // BTC/kvB
	Errors  []string    `json:"errors,omitempty"`
	Blocks  int64       `json:"blocks"`
}

// MiningInfo is the getmininginfo result.
type MiningInfo struct {
	Blocks             int32          `json:"blocks"`
	CurrentBlockWeight *int64         `json:"currentblockweight,omitempty"`
	CurrentBlockTx     *int64         `json:"currentblocktx,omitempty"`
	Bits               string         `json:"bits"`
	Difficulty         Float          `json:"difficulty"`
	Target             string         `json:"target"`
	NetworkHashPS      Float          `json:"networkhashps"`
	PooledTx           int64          `json:"pooledtx"`
	Chain              string         `json:"chain"`
	SignetChallenge    string         `json:"signet_challenge,omitempty"`
	Next               *NextBlockInfo `json:"next,omitempty"`
	Warnings           []string       `json:"warnings"`
}

// NextBlockInfo is getmininginfo's "next" object: the block being mined.
type NextBlockInfo struct {
	Height     int32  `json:"height"`
	Bits       string `json:"bits"`
	Difficulty Float  `json:"difficulty"`
	Target     string `json:"target"`
}

// TemplateTx is one getblocktemplate transaction.
type TemplateTx struct {
	Data    string  `json:"data"`
	TxID    string  `json:"txid"`
	Hash    string  `json:"hash"`
	Depends []int64 `json:"depends"`
	Fee     int64   `json:"fee"`
	SigOps  int64   `json:"sigops"`
	Weight  int64   `json:"weight"`
}

// BlockTemplate is the getblocktemplate result (BIP22/23/9/141).
type BlockTemplate struct {
	Capabilities             []string          `json:"capabilities"`
	Version                  int32             `json:"version"`
	Rules                    []string          `json:"rules"`
	VBAvailable              map[string]int    `json:"vbavailable"`
	VBRequired               int               `json:"vbrequired"`
	PreviousBlockHash        string            `json:"previousblockhash"`
	Transactions             []TemplateTx      `json:"transactions"`
	CoinbaseAux              map[string]string `json:"coinbaseaux"`
	CoinbaseValue            int64             `json:"coinbasevalue"`
	LongPollID               string            `json:"longpollid"`
	Target                   string            `json:"target"`
	MinTime                  int64             `json:"mintime"`
	Mutable                  []string          `json:"mutable"`
	NonceRange               string            `json:"noncerange"`
	SigOpLimit               int64             `json:"sigoplimit"`
	SizeLimit                int64             `json:"sizelimit"`
	WeightLimit              int64             `json:"weightlimit"`
	CurTime                  int64             `json:"curtime"`
	Bits                     string            `json:"bits"`
	Height                   int32             `json:"height"`
	SignetChallenge          string            `json:"signet_challenge,omitempty"`
	DefaultWitnessCommitment string            `json:"default_witness_commitment,omitempty"`
}

// GenerateBlockResult is the generateblock result.
type GenerateBlockResult struct {
	Hash string `json:"hash"`
	Hex  string `json:"hex,omitempty"`
}

// NetworkEntry is one getnetworkinfo networks entry.
type NetworkEntry struct {
	Name                      string `json:"name"`
	Limited                   bool   `json:"limited"`
	Reachable                 bool   `json:"reachable"`
	Proxy                     string `json:"proxy"`
	ProxyRandomizeCredentials bool   `json:"proxy_randomize_credentials"`
}

// LocalAddress is one getnetworkinfo localaddresses entry.
type LocalAddress struct {
	Address string `json:"address"`
	Port    int    `json:"port"`
	Score   int    `json:"score"`
}

// NetworkInfo is the getnetworkinfo result.
type NetworkInfo struct {
	Version            int            `json:"version"`
	SubVersion         string         `json:"subversion"`
	ProtocolVersion    int            `json:"protocolversion"`
	LocalServices      string         `json:"localservices"`
	LocalServicesNames []string       `json:"localservicesnames"`
	LocalRelay         bool           `json:"localrelay"`
	TimeOffset         int64          `json:"timeoffset"`
	Connections        int            `json:"connections"`
	ConnectionsIn      int            `json:"connections_in"`
	ConnectionsOut     int            `json:"connections_out"`
	NetworkActive      bool           `json:"networkactive"`
	Networks           []NetworkEntry `json:"networks"`
	RelayFee           json.Number    `json:"relayfee"`
	IncrementalFee     json.Number    `json:"incrementalfee"`
	LocalAddresses     []LocalAddress `json:"localaddresses"`
	Warnings           []string       `json:"warnings"`
}

// PeerInfo is one getpeerinfo entry.
type PeerInfo struct {
	ID                    int64            `json:"id"`
	Addr                  string           `json:"addr"`
	AddrBind              string           `json:"addrbind,omitempty"`
	AddrLocal             string           `json:"addrlocal,omitempty"`
	Network               string           `json:"network"`
	MappedAS              *int64           `json:"mapped_as,omitempty"`
	Services              string           `json:"services"`
	ServicesNames         []string         `json:"servicesnames"`
	RelayTxes             bool             `json:"relaytxes"`
	LastSend              int64            `json:"lastsend"`
	LastRecv              int64            `json:"lastrecv"`
	LastTransaction       int64            `json:"last_transaction"`
	LastBlock             int64            `json:"last_block"`
	BytesSent             uint64           `json:"bytessent"`
	BytesRecv             uint64           `json:"bytesrecv"`
	ConnTime              int64            `json:"conntime"`
	TimeOffset            int64            `json:"timeoffset"`
	PingTime              *Float           `json:"pingtime,omitempty"`
	MinPing               *Float           `json:"minping,omitempty"`
	PingWait              *Float           `json:"pingwait,omitempty"`
	Version               uint32           `json:"version"`
	SubVer                string           `json:"subver"`
	Inbound               bool             `json:"inbound"`
	BIP152HBTo            bool             `json:"bip152_hb_to"`
	BIP152HBFrom          bool             `json:"bip152_hb_from"`
	StartingHeight        int32            `json:"startingheight"`
	PresyncedHeaders      int32            `json:"presynced_headers"`
	SyncedHeaders         int32            `json:"synced_headers"`
	SyncedBlocks          int32            `json:"synced_blocks"`
	Inflight              []int32          `json:"inflight"`
	AddrRelayEnabled      bool             `json:"addr_relay_enabled"`
	AddrProcessed         uint64           `json:"addr_processed"`
	AddrRateLimited       uint64           `json:"addr_rate_limited"`
	Permissions           []string         `json:"permissions"`
	MinFeeFilter          json.Number      `json:"minfeefilter"`
	BytesSentPerMsg       map[string]int64 `json:"bytessent_per_msg"`
	BytesRecvPerMsg       map[string]int64 `json:"bytesrecv_per_msg"`
	ConnectionType        string           `json:"connection_type"`
	TransportProtocolType string           `json:"transport_protocol_type"`
	SessionID             string           `json:"session_id"`
}

// AddedNodeAddress is one address of an added node.
type AddedNodeAddress struct {
	Address   string `json:"address"`
	Connected string `json:"connected"` // "inbound" or "outbound"
}

// AddedNodeInfo is one getaddednodeinfo entry.
type AddedNodeInfo struct {
	AddedNode string             `json:"addednode"`
	Connected bool               `json:"connected"`
	Addresses []AddedNodeAddress `json:"addresses"`
}

// UploadTarget is the getnettotals uploadtarget object.
type UploadTarget struct {
	TimeFrame             int64  `json:"timeframe"`
	Target                uint64 `json:"target"`
	TargetReached         bool   `json:"target_reached"`
	ServeHistoricalBlocks bool   `json:"serve_historical_blocks"`
	BytesLeftInCycle      uint64 `json:"bytes_left_in_cycle"`
	TimeLeftInCycle       int64  `json:"time_left_in_cycle"`
}

// NetTotals is the getnettotals result.
type NetTotals struct {
	TotalBytesRecv uint64       `json:"totalbytesrecv"`
	TotalBytesSent uint64       `json:"totalbytessent"`
	TimeMillis     int64        `json:"timemillis"`
	UploadTarget   UploadTarget `json:"uploadtarget"`
}

// NodeAddress is one getnodeaddresses entry.
type NodeAddress struct {
	Time     int64  `json:"time"`
	Services uint64 `json:"services"`
	Address  string `json:"address"`
	Port     int    `json:"port"`
	Network  string `json:"network"`
}

// BannedEntry is one listbanned entry.
type BannedEntry struct {
	Address       string `json:"address"`
	BanCreated    int64  `json:"ban_created"`
	BannedUntil   int64  `json:"banned_until"`
	BanDuration   int64  `json:"ban_duration"`
	TimeRemaining int64  `json:"time_remaining"`
}
