package database

import (
	"testing"

	"github.com/btcnode/btcd/wire"
	"github.com/syndtr/goleveldb/leveldb"
)

// TestLevelDBStats reads the statistics the metrics endpoint exports.
func TestLevelDBStats(t *testing.T) {
	cs, err := OpenChainState(t.TempDir(), ChainStateOptions{NoSyncOnFlush: true})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	var s leveldb.DBStats
	if err := cs.LevelDBStats(&s); err != nil {
		t.Fatal(err)
	}
	db, err := OpenBlockDB(t.TempDir(), wire.RegTest, BlockDBOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.LevelDBStats(&s); err != nil {
		t.Fatal(err)
	}
}
