// This file implements workspace/executeCommand: seer.predict (from the
// lenses and the re-run action), seer.showOtherAccess and seer.showWitness
// (from the code actions).

package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// ExecuteCommand runs one of seer's commands.
func (s *server) ExecuteCommand(ctx context.Context, params *protocol.ExecuteCommandParams) (any, error) {
	switch params.Command {
	case cmdPredict:
		var args predictArgs
		if err := decodeArgs(params, &args); err != nil {
			return nil, err
		}
		var r replayArgs // the "Replay witness" action's (replay.go)
		decodeArgs(params, &r)
		return s.predict(ctx, args, params.WorkDoneToken, r.Replay)
	case cmdShowOtherAccess:
		var args accessArgs
		if err := decodeArgs(params, &args); err != nil {
			return nil, err
		}
		return s.showOtherAccess(ctx, args)
	case cmdShowWitness:
		var args accessArgs
		if err := decodeArgs(params, &args); err != nil {
			return nil, err
		}
		return s.showWitness(ctx, args)
	}
	return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "seer: unknown command %q", params.Command)
}

// decodeArgs decodes the command's single argument object into v.
func decodeArgs(params *protocol.ExecuteCommandParams, v any) error {
	if len(params.Arguments) != 1 {
		return jsonrpc2.Errorf(jsonrpc2.InvalidParams, "seer: %s takes one argument, got %d", params.Command, len(params.Arguments))
	}
	data, err := json.Marshal(params.Arguments[0])
	if err == nil {
		err = json.Unmarshal(data, v)
	}
	if err != nil {
		return jsonrpc2.Errorf(jsonrpc2.InvalidParams, "seer: bad argument to %s: %v", params.Command, err)
	}
	return nil
}

// predict runs seer.predict: it starts the job, lets other requests go
// on, and answers when the job ends. Cancelling the request
// ($/cancelRequest) cancels the job.
func (s *server) predict(ctx context.Context, args predictArgs, progressToken *protocol.ProgressToken, replay bool) (any, error) {
	s.mu.Lock()
	path, err := s.notePath(args.URI)
	if err == nil && s.noWorkspace() {
		err = jsonrpc2.Errorf(jsonrpc2.InvalidParams, "seer: %s", errNoWorkspace)
	}
	if err == nil && (!strings.HasSuffix(path, ".go") || !s.inWorkspace(path)) {
		err = jsonrpc2.Errorf(jsonrpc2.InvalidParams, "seer: %s is not a Go file in the workspace", args.URI)
	}
	if err == nil && args.Test != "" && (!isTestName(args.Test) || !token.IsIdentifier(args.Test)) {
		err = jsonrpc2.Errorf(jsonrpc2.InvalidParams, "seer: %q is not the name of a test", args.Test)
	}
	if err != nil {
		s.mu.Unlock()
		if _, ok := err.(*jsonrpc2.Error); !ok {
			err = jsonrpc2.Errorf(jsonrpc2.InvalidParams, "seer: %v", err)
		}
		return nil, err
	}
	sc := scope{dir: filepath.Dir(path), test: args.Test}
	s.store.request(sc)
	unsaved := s.unsaved(sc.dir)
	s.mu.Unlock()
	if len(unsaved) > 0 {
		s.showMessage(protocol.MessageTypeWarning, "recording the saved files: the changes to %s are not saved", strings.Join(unsaved, ", "))
	}

	why := "command"
	switch {
	case replay:
		why = whyReplay
	case args.Explore:
		why = whyExplore
	}
	j := s.startJob(sc, progressToken, why)
	releaseQueue(ctx)
	select {
	case <-j.done:
		return j.result, nil
	case <-ctx.Done():
		s.mu.Lock()
		j.stop()
		s.mu.Unlock()
		<-j.done
		if len(j.result.Tests) > 0 {
			return j.result, nil // an exploration stopped: what it found stays
		}
		return nil, protocol.ErrRequestCancelled
	}
}

// unsaved returns the names of the open files of dir whose text differs
// from the file on disk: a recording builds what is on disk. Called with
// s.mu held.
func (s *server) unsaved(dir string) []string {
	var out []string
	for path, d := range s.docs {
		if filepath.Dir(path) != dir {
			continue
		}
		if disk, err := os.ReadFile(path); err == nil && !bytes.Equal(disk, d.content) {
			out = append(out, filepath.Base(path))
		}
	}
	sort.Strings(out)
	return out
}
