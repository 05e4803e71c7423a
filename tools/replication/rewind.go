package replication

import (
	"context"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go"
)

// ErrDiverged is returned (wrapped) by a follower's checkpoint when the
// log no longer holds, at the sequence it applied last or at its
// newest mark, the message it applied there, and by its bypass of a
// stalled consumer when the log no longer holds the applied position:
// its consumer delivered entries the stream's leader does not have (a
// replica that kept a tail the leader lost to a power cut of every
// node), or the log lost its tail and new records took the lost
// sequences. The position is not recorded; the follower binds again
// from the newest mark the log still holds (Log.Rewinds).
var ErrDiverged = errors.New("replication: the log no longer holds the applied message")

// resumeFrom checks stream i's position against the log, before a
// follower binds (and for every stream at Open, applied 0): the newest
// of (applied, id), the follower's last applied message when not yet
// recorded, and the recorded marks whose message the stream still holds
// at its sequence (the same Nats-Msg-Id), each counting only when the
// stream also holds the mark before it (heldMark). Without a mark to check (a
// bootstrap, a file of an older version, marks gone by retention) the
// position is held when it is at most the stream's last sequence. When
// the position is not held, the resume point is lower: it is recorded (rewind), counted
// (Log.Rewinds) and logged, and the entries after it are applied again
// (Applier.Apply is idempotent); 0 when no mark is held (the stream
// applied again from its start, or bootstrapped). It returns the
// sequence to apply after.
func (l *Log) resumeFrom(ctx context.Context, i int, applied uint64, id string) (uint64, error) {
	rec := l.pos.get(i)
	from := max(rec, applied)
	if from == 0 {
		return 0, nil
	}
	name := l.cfg.Layout.StreamName(i)
	si, err := l.js.StreamInfo(name, nats.Context(ctx))
	if err != nil {
		return 0, fmt.Errorf("replication: %s: %w", name, err)
	}
	marks := l.pos.marksOf(i)
	if applied > rec && id != "" {
		marks = append([]mark{{seq: applied, id: id}}, marks...)
	}
	to, err := l.heldMark(ctx, name, si.State, from, marks)
	if err != nil || to >= from {
		return from, err
	}
	if err := l.pos.rewind(i, to); err != nil {
		return 0, err
	}
	l.rewinds[i].Add(1)
	why := fmt.Sprintf("holds another message than the one applied (the log's last sequence is %d)", si.State.LastSeq)
	if from > si.State.LastSeq {
		why = fmt.Sprintf("is past the log's last sequence %d", si.State.LastSeq)
	}
	l.logf("replication: %s: position %d %s: the log lost entries (a power cut of every node before their stores synced them) and new ones may take their sequences: applying again from %d",
		name, from, why, to+1)
	return to, nil
}

// heldMark is the sequence of the newest of marks the stream (state
// st) holds at its sequence and whose next older mark it holds too (a
// follower that went on in another history without noticing recorded
// marks of it on top of one the log no longer holds: its newest marks
// are held, the one before them is not), 0 when none. A mark past the
// stream's last sequence is not held; from a mark below its first
// sequence on (gone by retention), and without marks, nothing can be
// checked: it is from or the stream's last sequence, the lower.
func (l *Log) heldMark(ctx context.Context, name string, st nats.StreamState, from uint64, marks []mark) (uint64, error) {
	for j, m := range marks {
		if m.seq < st.FirstSeq && m.seq <= st.LastSeq {
			return min(from, st.LastSeq), nil
		}
		held, err := l.holds(ctx, name, st, m)
		if err == nil && held && j+1 < len(marks) {
			held, err = l.holds(ctx, name, st, marks[j+1])
		}
		if err != nil {
			return 0, err
		}
		if held {
			return m.seq, nil
		}
	}
	if len(marks) == 0 {
		return min(from, st.LastSeq), nil
	}
	return 0, nil
}

// holds says whether the stream (state st) holds the message of mark m
// at its sequence: not when m is past its last sequence; when m is
// below its first sequence (gone by retention) nothing can be checked,
// and it counts as held.
func (l *Log) holds(ctx context.Context, name string, st nats.StreamState, m mark) (bool, error) {
	switch {
	case m.seq > st.LastSeq:
		return false, nil
	case m.seq < st.FirstSeq:
		return true, nil
	}
	got, err := l.idAt(ctx, name, m.seq)
	return got == m.id, err
}

// idAt is the Nats-Msg-Id of the stream's message at seq as its
// leader has it, "" when it has none there.
func (l *Log) idAt(ctx context.Context, name string, seq uint64) (string, error) {
	raw, err := l.js.GetMsg(name, seq, nats.Context(ctx))
	if errors.Is(err, nats.ErrMsgNotFound) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("replication: %s seq %d: %w", name, seq, err)
	}
	return raw.Header.Get(nats.MsgIdHdr), nil
}

// checkHeld returns ErrDiverged (wrapped) unless the stream holds the
// message with Nats-Msg-Id id at seq (a checkpoint's check, before it
// records seq), within PublishTimeout; nil for id "" (no message
// applied since the follower bound at seq: nothing to check) and for a
// seq below the stream's first sequence (gone by retention: nothing
// can be checked).
func (l *Log) checkHeld(stream int, seq uint64, id string) error {
	if id == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), l.cfg.PublishTimeout)
	defer cancel()
	name := l.cfg.Layout.StreamName(stream)
	got, err := l.idAt(ctx, name, seq)
	if err != nil || got == id {
		return err
	}
	if got == "" {
		si, err := l.js.StreamInfo(name, nats.Context(ctx))
		if err != nil {
			return fmt.Errorf("replication: %s: %w", name, err)
		}
		if seq < si.State.FirstSeq {
			return nil
		}
	}
	return fmt.Errorf("%w: %s seq %d holds %q, applied %q", ErrDiverged, name, seq, got, id)
}

// Rewinds counts the times this node lowered its position in stream
// because the log no longer held the message there (ErrDiverged; at
// Open too), since Open.
func (l *Log) Rewinds(stream int) uint64 { return l.rewinds[stream].Load() }

// Stalls counts the times this node's follower of stream applied
// messages from the stream's leader because its consumer delivered
// nothing for StallAfter although the log held them, since Open.
func (l *Log) Stalls(stream int) uint64 { return l.stalls[stream].Load() }
