-- Headless test of the seer plugin against the real `seer serve`, from the
-- repository's root:
--
--   nvim --headless -u NONE -i NONE -n -c 'set rtp+=editors/nvim' -c 'luafile editors/nvim/test/run.lua'
--
-- The server is $SEER_BIN (else `seer` on PATH, else built with go). It
-- opens examples/bank/bank_test.go, runs the "seer: predict" lens of
-- TestAudit (recording the test: a minute on a cold cache), waits for the
-- race on bank.go, hovers it, lists its code actions, runs :SeerWitness,
-- :SeerWitness! (the picture, in a stand-in $BROWSER), :SeerOther,
-- :SeerPredict and :SeerRestart, and runs :checkhealth seer.
-- Before recording, it checks that :SeerPredict refuses a modified buffer.
-- Exits 0 on success, 1 with a message on failure.

local started = vim.loop.hrtime()
local function elapsed()
  return string.format('%6.1fs', (vim.loop.hrtime() - started) / 1e9)
end

local function log(msg)
  io.stdout:write(elapsed() .. ' ' .. msg .. '\n')
  io.stdout:flush()
end

local failed = false
local function fail(msg)
  failed = true
  error('FAIL: ' .. msg, 0)
end

local function check(cond, msg)
  if not cond then
    fail(msg)
  end
  return cond
end

local function wait(what, ms, cond)
  local ok = vim.wait(ms, cond, 100)
  check(ok, 'timed out after ' .. ms / 1000 .. ' s waiting for ' .. what)
end

local script = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p')
local root = vim.fn.fnamemodify(script, ':h:h:h:h')
local bank_test = root .. '/examples/bank/bank_test.go'
local bank = root .. '/examples/bank/bank.go'

local function seer_bin()
  local bin = vim.env.SEER_BIN
  if bin and bin ~= '' then
    check(vim.fn.executable(bin) == 1, 'SEER_BIN=' .. bin .. ' is not executable')
    return bin
  end
  if vim.fn.executable('seer') == 1 then
    return vim.fn.exepath('seer')
  end
  check(vim.fn.executable('go') == 1, 'neither SEER_BIN nor seer nor go is available')
  local dir = vim.fn.tempname()
  vim.fn.mkdir(dir, 'p')
  bin = dir .. '/seer'
  log('building seer into ' .. bin)
  local out = vim.fn.system({ 'go', 'build', '-o', bin, './cmd/seer' })
  check(vim.v.shell_error == 0, 'go build failed: ' .. out)
  return bin
end

local function line_of(path, needle)
  for i, l in ipairs(vim.fn.readfile(path)) do
    if l:find(needle, 1, true) then
      return i - 1
    end
  end
  fail(path .. ' has no line with ' .. needle)
end

local function seer_diags(buf)
  local out = {}
  if buf > 0 then
    for _, d in ipairs(vim.diagnostic.get(buf)) do
      if d.source == 'seer' then
        table.insert(out, d)
      end
    end
  end
  return out
end

-- Client methods: 0.11 wants client:method(...), 0.7 client.method(...).
local function request_sync(client, ...)
  if vim.fn.has('nvim-0.11') == 1 then
    return client:request_sync(...)
  end
  return client.request_sync(...)
end

local function buffer_text(buf)
  return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n')
end

local function unit_tests(seer)
  local src = table.concat({
    'package p',
    'import "testing"',
    'func TestA(t *testing.T) {',
    '\ts := "}" + `',
    '}`',
    "\t_ = '}' // }",
    '\tf := func() { /* } */ }',
    '\t_, _ = s, f /*A*/',
    '}',
    'func helper() { /*helper*/ }',
    'func (s *x) TestM(t *testing.T) { /*method*/ }',
    'func Testlower(t *testing.T) { /*lower*/ }',
    'func TestDot(t *T) { /*dot*/ }',
    'func TestOpen(t *testing.T) {',
    '\tif x { /*open*/',
  }, '\n')
  local function at(marker)
    local i = src:find(marker, 1, true)
    check(i, 'marker ' .. marker)
    return seer.enclosing_test(src, i)
  end
  check(at('/*A*/') == 'TestA', 'TestA: ' .. tostring(at('/*A*/')))
  check(at('/*helper*/') == nil, 'helper')
  check(at('/*method*/') == nil, 'method')
  check(at('/*lower*/') == nil, 'Testlower')
  check(at('/*dot*/') == 'TestDot', 'TestDot')
  check(at('/*open*/') == 'TestOpen', 'TestOpen')
  check(seer.enclosing_test(src, 1) == nil, 'package clause')
  log('ok: enclosing_test')
end

-- The "seer: explore" lens on editors/testdata/explore (a copy of one of
-- seer check -explore's kernels, whose race only a steered run shows),
-- with a small budget: the progress says which run it is on, the steered
-- run's race arrives on both accesses with its origin in the hover, and
-- :SeerCancel in a second exploration keeps what the finished runs found.
local kernel_dir = root .. '/editors/testdata/explore'
local kernel = kernel_dir .. '/cancel_test.go'
local explore_budget = 8

-- Each $/progress value seer's servers send, in order, with its client
-- (each server numbers its tokens from 1); the plugin's handler calls the
-- global one.
local progress_log = {}
local function log_progress()
  local default = vim.lsp.handlers['$/progress']
  vim.lsp.handlers['$/progress'] = function(err, result, ctx, config)
    if type(result) == 'table' and type(result.value) == 'table' then
      table.insert(progress_log, { client = ctx.client_id, token = result.token, value = result.value })
    end
    if default then
      return default(err, result, ctx, config)
    end
  end
end

-- Waits for buf's lens titled title that runs seer.predict on test.
local function wait_lens(buf, title, test)
  local lens
  wait('the ' .. title .. ' lens of ' .. test, 20000, function()
    for _, l in ipairs(vim.lsp.codelens.get(buf)) do
      local a = l.command and l.command.arguments and l.command.arguments[1]
      if l.command.title == title and l.command.command == 'seer.predict' and type(a) == 'table' and a.test == test then
        lens = l
        return true
      end
    end
    return false
  end)
  return lens
end

-- Runs the lens titled title on the current line, as
-- <cmd>lua vim.lsp.codelens.run()<cr> does: codelens.run offers the
-- line's lenses with vim.ui.select, and the user chooses by title. Returns
-- the progress the server then begins (titled want_title), as
-- {client, token}, and the titles offered.
local function run_lens(title, want_title)
  local select, offered = vim.ui.select, {}
  vim.ui.select = function(items, opts, on_choice)
    vim.ui.select = select
    local chosen
    for _, item in ipairs(items) do
      local t = opts.format_item(item)
      table.insert(offered, t)
      if t == title then
        chosen = item
      end
    end
    on_choice(chosen)
  end
  local from = #progress_log
  vim.lsp.codelens.run()
  check(vim.ui.select == select, 'codelens.run did not offer a choice of lenses: ' .. table.concat(offered, ', '))
  local token
  wait('the progress of ' .. title, 20000, function()
    for i = from + 1, #progress_log do
      local e = progress_log[i]
      if e.value.kind == 'begin' and e.value.title == want_title then
        token = { client = e.client, token = e.token }
        return true
      end
    end
    return false
  end)
  return token, offered
end

-- The messages of a progress ({client, token}) so far, and its end's
-- message (nil while it runs).
local function progress_messages(p)
  local msgs, ended = {}, nil
  for _, e in ipairs(progress_log) do
    if e.client == p.client and e.token == p.token and e.value.message then
      table.insert(msgs, e.value.message)
      if e.value.kind == 'end' then
        ended = e.value.message
      end
    end
  end
  return msgs, ended
end

local function explore_tests(seer, bank_client)
  -- The kernel's module gets a client of its own, with the budget.
  seer.config.settings.seer.explore = explore_budget
  vim.cmd('edit ' .. vim.fn.fnameescape(kernel))
  local kbuf = vim.api.nvim_get_current_buf()
  wait('seer to attach to the kernel', 20000, function()
    local c = seer.clients(kbuf)[1]
    return c ~= nil and c.server_capabilities ~= nil
  end)
  local kclient = seer.clients(kbuf)[1]
  check(kclient.id ~= bank_client and kclient.config.root_dir == kernel_dir, 'the kernel\'s client: root ' .. tostring(kclient.config.root_dir))
  local lens = wait_lens(kbuf, 'seer: explore', 'TestCancel')
  check(lens.command.arguments[1].explore == true, 'the explore lens does not ask to explore: ' .. vim.inspect(lens.command))
  local write_line = line_of(kernel, 's.count = 0')
  local read_line = line_of(kernel, '_ = s.count')
  local function on_both()
    local lines = {}
    for _, d in ipairs(seer_diags(kbuf)) do
      if d.message:find('s.count', 1, true) then
        lines[d.lnum] = d
      end
    end
    return lines[write_line] and lines[read_line] and lines
  end
  local function explore()
    vim.api.nvim_win_set_cursor(0, { lens.range.start.line + 1, 0 })
    return run_lens('seer: explore', 'seer: exploring TestCancel')
  end

  -- Steering is random (a new seed each time), and a loaded machine may
  -- show the race in the first, unsteered run: try up to four
  -- explorations for the race of a steered run.
  local found, origin
  for try = 1, 4 do
    local token = explore()
    local ended
    wait('exploration ' .. try .. ' to end', 300000, function()
      _, ended = progress_messages(token)
      return ended ~= nil
    end)
    local msgs = progress_messages(token)
    local runs = {}
    for _, m in ipairs(msgs) do
      local i, n = m:match('^run (%d+) of (%d+): %d+ findings? so far$')
      if i then
        check(tonumber(n) == explore_budget, 'progress ' .. m .. ': want ' .. explore_budget .. ' runs')
        table.insert(runs, tonumber(i))
      end
    end
    check(#runs > 0 and runs[1] == 1, 'exploration ' .. try .. ': no "run i of N" progress: ' .. table.concat(msgs, ' | '))
    log(string.format('ok: exploration %d: runs %s of %d; ended "%s"', try, table.concat(runs, ','), explore_budget, ended))
    found = on_both()
    if found then
      local write = found[write_line]
      vim.api.nvim_win_set_cursor(0, { write.lnum + 1, write.col })
      local resp = request_sync(kclient, 'textDocument/hover', vim.lsp.util.make_position_params(0, 'utf-16'), 10000, kbuf)
      check(resp and not resp.err and resp.result, 'hover: ' .. vim.inspect(resp))
      local md = resp.result.contents.value
      local run, strategy, seed = md:match('Found by exploring%*%*: found in explore run (%d+) %((%a+), seed (%d+)%)')
      if run then
        check(tonumber(run) >= 1 and tonumber(run) <= explore_budget, 'the hover gives run ' .. run .. ' of ' .. explore_budget .. ':\n' .. md)
        origin = string.format('found in explore run %s (%s, seed %s)', run, strategy, seed)
        log('ok: the steered run\'s race: cancel_test.go:' .. (write_line + 1) .. ': ' .. write.message)
        log('ok: hover: ' .. origin)
        break
      end
      check(not md:find('Found by exploring', 1, true), 'the hover\'s origin does not read as "found in explore run N (strategy, seed S)":\n' .. md)
      log('exploration ' .. try .. ': the first run showed the race: again')
    end
  end
  check(origin, 'no exploration of four showed the race of a steered run on both accesses of s.count')

  -- Cancel a second exploration once a finished run has found the race
  -- and runs remain: the race stays. A run that finds it only last
  -- leaves nothing to cancel: try again.
  local cancelled
  for try = 1, 4 do
    local token = explore()
    local at
    wait('exploration to find the race or end', 300000, function()
      local msgs, ended = progress_messages(token)
      for _, m in ipairs(msgs) do
        local i, n, k = m:match('^run (%d+) of (%d+): (%d+) findings? so far$')
        if i and tonumber(k) >= 1 and tonumber(i) < tonumber(n) then
          at = m
        end
      end
      return at ~= nil or ended ~= nil
    end)
    if at then
      check(seer.cancel() == 1, ':SeerCancel cancelled no prediction')
      local ended
      wait('the cancelled exploration to end', 60000, function()
        _, ended = progress_messages(token)
        return ended ~= nil
      end)
      local kept = ended:match('^cancelled after %d+ steered runs?: (%d+) findings? kept$')
      check(kept, 'the cancelled exploration ended "' .. ended .. '", after "' .. at .. '"')
      -- The progress counts leaks too (reported as messages, not kept
      -- as diagnostics): a count that was a leak only is tried again.
      if tonumber(kept) >= 1 then
        check(on_both(), 'the race is gone after the cancel: ' .. vim.inspect(seer_diags(kbuf)))
        log('ok: :SeerCancel at "' .. at .. '": "' .. ended .. '", the race stays on both accesses')
        cancelled = true
        break
      end
      log('exploration ' .. try .. ': the finding so far was a leak: again')
    else
      log('exploration ' .. try .. ' ended before a run had found the race with runs to go: again')
    end
  end
  check(cancelled, 'no exploration of four gave a cancel a finding to keep')
  vim.lsp.stop_client(kclient.id)
end

local function run()
  vim.cmd('filetype on')
  local seer = require('seer')
  unit_tests(seer)
  log_progress()

  local bin = seer_bin()
  log('server: ' .. bin .. ' serve (' .. vim.version().major .. '.' .. vim.version().minor .. '.' .. vim.version().patch .. ')')
  seer.setup({ cmd = { bin, 'serve' }, settings = { seer = { timeout = '3m' } } })

  -- Open the test file and wait for the client.
  vim.cmd('edit ' .. vim.fn.fnameescape(bank_test))
  local tbuf = vim.api.nvim_get_current_buf()
  check(vim.bo.filetype == 'go', 'filetype is ' .. vim.bo.filetype)
  wait('seer to attach to bank_test.go', 20000, function()
    local c = seer.clients(tbuf)[1]
    return c ~= nil and c.server_capabilities ~= nil
  end)
  local client = seer.clients(tbuf)[1]
  check(client.config.root_dir == root, 'root_dir ' .. tostring(client.config.root_dir) .. ', want ' .. root)
  log('ok: attached, root ' .. client.config.root_dir)

  -- :SeerPredict on a modified buffer refuses, says why, and neither
  -- writes the buffer nor asks the server.
  local on_disk = vim.fn.readfile(bank_test, 'b')
  vim.api.nvim_buf_set_lines(tbuf, -1, -1, false, { '// an unsaved edit' })
  check(vim.bo[tbuf].modified, 'the buffer is modified')
  local notified = {}
  local orig_notify = vim.notify
  vim.notify = function(msg, level)
    table.insert(notified, { msg = msg, level = level })
  end
  seer.last = nil
  local ok_cmd, cmd_err = pcall(vim.cmd, 'SeerPredict TestAudit')
  vim.notify = orig_notify
  local written = not vim.deep_equal(vim.fn.readfile(bank_test, 'b'), on_disk)
  if written then
    vim.fn.writefile(on_disk, bank_test, 'b') -- put the repository's file back
  end
  check(ok_cmd, ':SeerPredict on a modified buffer: ' .. tostring(cmd_err))
  check(not written and vim.bo[tbuf].modified, ':SeerPredict wrote the modified buffer')
  check(#notified == 1 and notified[1].msg:find('save the buffer first (:w)', 1, true) and notified[1].level == vim.log.levels.WARN,
    ':SeerPredict on a modified buffer said ' .. vim.inspect(notified))
  vim.wait(500, function()
    return seer.last ~= nil
  end, 50)
  check(seer.last == nil, ':SeerPredict on a modified buffer asked the server: ' .. vim.inspect(seer.last))
  vim.cmd('edit!')
  check(not vim.bo[tbuf].modified, 'the edit is dropped')
  log('ok: :SeerPredict refuses a modified buffer: ' .. notified[1].msg)

  -- Code lenses: the plugin refreshes them on attach and BufEnter.
  local lens = wait_lens(tbuf, 'seer: predict', 'TestAudit')
  local titles = {}
  for _, l in ipairs(vim.lsp.codelens.get(tbuf)) do
    table.insert(titles, l.command.title)
  end
  check(vim.tbl_contains(titles, 'seer: predict all tests'), 'lenses: ' .. table.concat(titles, ', '))
  -- Each test has its explore lens beside its predict lens, on its line.
  local explore
  for _, l in ipairs(vim.lsp.codelens.get(tbuf)) do
    local a = l.command.arguments and l.command.arguments[1]
    if l.command.title == 'seer: explore' and type(a) == 'table' and a.test == 'TestAudit' and a.explore == true then
      explore = l
    end
  end
  check(explore and explore.range.start.line == lens.range.start.line, 'no seer: explore lens on TestAudit\'s line: ' .. table.concat(titles, ', '))
  -- And they are drawn (virtual text in the code lens namespace).
  wait('the lenses to be drawn', 10000, function()
    for name, ns in pairs(vim.api.nvim_get_namespaces()) do
      if name:match('codelens') then
        for _, m in ipairs(vim.api.nvim_buf_get_extmarks(tbuf, ns, 0, -1, { details = true })) do
          local vt = m[4] and m[4].virt_text
          if vt and vt[1] and tostring(vt[1][1]):find('seer: predict', 1, true) then
            return true
          end
        end
      end
    end
    return false
  end)
  log('ok: lenses: ' .. table.concat(titles, ', '))

  -- Run the lens, as <cmd>lua vim.lsp.codelens.run()<cr> on its line.
  vim.api.nvim_win_set_cursor(0, { lens.range.start.line + 1, 0 })
  check(seer.test_at_cursor() == 'TestAudit', 'test at the lens: ' .. tostring(seer.test_at_cursor()))
  -- Two lenses on the line: choose seer: predict.
  local _, offered = run_lens('seer: predict', 'seer: predicting TestAudit')
  check(vim.tbl_contains(offered, 'seer: predict') and vim.tbl_contains(offered, 'seer: explore'), 'lenses offered: ' .. table.concat(offered, ', '))
  local write_line = line_of(bank, 'a.note = "deposit"')
  local read_line = line_of(bank, 'return a.note')
  log(string.format('running the lens; waiting for seer diagnostics at bank.go:%d and bank.go:%d', write_line + 1, read_line + 1))
  wait('seer diagnostics on bank.go (a cold cache records for about a minute)', 300000, function()
    local lines = {}
    for _, d in ipairs(seer_diags(vim.fn.bufnr(bank))) do
      lines[d.lnum] = true
    end
    return lines[write_line] and lines[read_line]
  end)
  local bbuf = vim.fn.bufnr(bank)
  local write
  for _, d in ipairs(seer_diags(bbuf)) do
    if d.lnum == write_line then
      write = d
    end
  end
  check(write.severity == vim.diagnostic.severity.WARN, 'severity ' .. tostring(write.severity))
  check(write.message:find('a.note', 1, true), 'message: ' .. write.message)
  log('ok: bank.go:' .. (write_line + 1) .. ': ' .. write.message)

  -- Open bank.go, hover on the write.
  vim.cmd('edit ' .. vim.fn.fnameescape(bank))
  check(vim.api.nvim_get_current_buf() == bbuf, 'bank.go is the buffer the diagnostics are on')
  wait('seer to attach to bank.go', 20000, function()
    return seer.clients(bbuf)[1] ~= nil
  end)
  check(#seer.clients() == 1, 'one client for the module, got ' .. #seer.clients())
  vim.api.nvim_win_set_cursor(0, { write.lnum + 1, write.col })
  local resp = request_sync(client, 'textDocument/hover', vim.lsp.util.make_position_params(0, 'utf-16'), 10000, bbuf)
  check(resp and not resp.err and resp.result, 'hover: ' .. vim.inspect(resp))
  local md = resp.result.contents
  check(type(md) == 'table' and md.kind == 'markdown', 'hover contents: ' .. vim.inspect(md))
  check(md.value:find('bank.go:' .. (read_line + 1), 1, true), 'hover names the other access:\n' .. md.value)
  log('ok: hover (' .. #md.value .. ' bytes of markdown)')
  -- And through the user's path: K shows a floating window.
  vim.lsp.buf.hover()
  wait('the hover window', 10000, function()
    for _, w in ipairs(vim.api.nvim_list_wins()) do
      if vim.api.nvim_win_get_config(w).relative ~= '' then
        return true
      end
    end
    return false
  end)
  for _, w in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_config(w).relative ~= '' then
      vim.api.nvim_win_close(w, true)
    end
  end
  log('ok: hover window')

  -- Code actions there.
  local params = vim.lsp.util.make_range_params(0, 'utf-16')
  params.context = { diagnostics = {} }
  resp = request_sync(client, 'textDocument/codeAction', params, 10000, bbuf)
  check(resp and not resp.err and resp.result, 'code actions: ' .. vim.inspect(resp))
  local actions = {}
  for _, a in ipairs(resp.result) do
    table.insert(actions, a.title)
  end
  local all = table.concat(actions, ' | ')
  check(all:find('Go to the other access', 1, true), 'actions: ' .. all)
  check(vim.tbl_contains(actions, 'Show witness schedule'), 'actions: ' .. all)
  check(vim.tbl_contains(actions, 'Re-run prediction of TestAudit'), 'actions: ' .. all)
  log('ok: code actions: ' .. all)

  -- :SeerWitness opens the witness (0.7 has no window/showDocument).
  local shown
  seer.witness(function(s)
    shown = s
  end)
  wait(':SeerWitness', 20000, function()
    return shown ~= nil
  end)
  local wbuf = vim.api.nvim_get_current_buf()
  local caps = vim.lsp.protocol.make_client_capabilities()
  if not (caps.window.showDocument and caps.window.showDocument.support) then
    check(vim.api.nvim_buf_get_name(wbuf) == vim.uri_to_fname(shown.uri), 'current buffer ' .. vim.api.nvim_buf_get_name(wbuf) .. ', witness ' .. shown.uri)
  end
  local wtext = table.concat(vim.fn.readfile(vim.uri_to_fname(shown.uri)), '\n')
  check(wtext:find('TestAudit', 1, true), 'witness:\n' .. wtext)
  check(wtext:find('bank.go:' .. (write_line + 1), 1, true), 'witness:\n' .. wtext)
  log('ok: :SeerWitness opened ' .. vim.uri_to_fname(shown.uri))
  if #vim.api.nvim_tabpage_list_wins(0) > 1 then
    vim.cmd('only')
  end
  vim.cmd('buffer ' .. bbuf)

  -- :SeerWitness! opens the witness's picture in $BROWSER: here a script
  -- that writes down the file it was given.
  local opened = vim.fn.tempname()
  local browser = vim.fn.tempname() .. '-browser.sh'
  vim.fn.writefile({ '#!/bin/sh', 'printf "%s" "$1" > ' .. vim.fn.shellescape(opened) .. '.tmp && mv ' .. vim.fn.shellescape(opened) .. '.tmp ' .. vim.fn.shellescape(opened) }, browser)
  vim.fn.setfperm(browser, 'rwx------')
  local old_browser = vim.env.BROWSER
  vim.env.BROWSER = browser
  vim.api.nvim_win_set_cursor(0, { write.lnum + 1, write.col })
  local picture
  seer.witness_picture(function(s)
    picture = s
  end)
  wait(':SeerWitness!', 20000, function()
    return picture ~= nil and vim.loop.fs_stat(opened) ~= nil
  end)
  vim.env.BROWSER = old_browser
  local page_path = table.concat(vim.fn.readfile(opened), '')
  check(page_path == vim.uri_to_fname(picture.uri), 'the browser got ' .. page_path .. ', the server answered ' .. picture.uri)
  check(page_path:match('%.html$'), 'the picture is not an .html file: ' .. page_path)
  local page = table.concat(vim.fn.readfile(page_path), '\n')
  check(page:find('<!DOCTYPE html>', 1, true), 'picture:\n' .. page:sub(1, 400))
  local _, accesses = page:gsub('data%-bug%-access=', '')
  check(accesses == 2, 'the picture marks ' .. accesses .. ' accesses, want 2')
  check(page:find('bank.go:' .. (write_line + 1), 1, true), 'the picture does not name bank.go:' .. (write_line + 1))
  check(vim.api.nvim_get_current_buf() == bbuf, 'the picture opened a buffer')
  log('ok: :SeerWitness! opened ' .. page_path .. ' in $BROWSER')
  -- $BROWSER as the convention has it: a ':'-list, %s for the file.
  vim.env.BROWSER = 'firefox --new-tab:chromium'
  check(vim.deep_equal(seer.browser_command('/t/w.html'), { 'firefox', '--new-tab', '/t/w.html' }), vim.inspect(seer.browser_command('/t/w.html')))
  vim.env.BROWSER = 'lynx -dump %s'
  check(vim.deep_equal(seer.browser_command('/t/w.html'), { 'lynx', '-dump', '/t/w.html' }), vim.inspect(seer.browser_command('/t/w.html')))
  vim.env.BROWSER = old_browser

  -- :SeerOther jumps from the write to the read.
  check(vim.api.nvim_get_current_buf() == bbuf, 'back on bank.go')
  vim.api.nvim_win_set_cursor(0, { write.lnum + 1, write.col })
  shown = nil
  vim.cmd('SeerOther')
  wait(':SeerOther', 20000, function()
    return vim.api.nvim_win_get_cursor(0)[1] == read_line + 1
  end)
  log('ok: :SeerOther jumped to bank.go:' .. (read_line + 1))

  -- :SeerPredict in the body of TestAudit.
  vim.cmd('buffer ' .. tbuf)
  local body = line_of(bank_test, 'a.Deposit(10)')
  vim.api.nvim_win_set_cursor(0, { body + 1, 1 })
  seer.last = nil
  vim.cmd('SeerPredict')
  wait(':SeerPredict', 300000, function()
    return seer.last ~= nil
  end)
  check(seer.last.test == 'TestAudit', 'predicted ' .. tostring(seer.last.test))
  local r = seer.last.result
  check(type(r) == 'table' and not r.error and (r.findings or 0) >= 1, ':SeerPredict answered ' .. vim.inspect(r))
  log(string.format('ok: :SeerPredict TestAudit: %d finding(s)', r.findings))

  -- :SeerRestart starts a new client for the same buffers.
  local old = client.id
  vim.cmd('SeerRestart')
  wait('a new client after :SeerRestart', 20000, function()
    local c = seer.clients(tbuf)[1]
    return c ~= nil and c.id ~= old and c.server_capabilities ~= nil
  end)
  wait('bank.go to be re-attached after :SeerRestart', 20000, function()
    local c = seer.clients(bbuf)[1]
    return c ~= nil and c.id == seer.clients(tbuf)[1].id
  end)
  check(#seer.clients() == 1, 'one client after restart, got ' .. #seer.clients())
  log('ok: :SeerRestart')

  explore_tests(seer, client.id)

  -- :checkhealth seer
  vim.cmd('checkhealth seer')
  local health = buffer_text(vim.api.nvim_get_current_buf())
  check(health:find('answers initialize: seer', 1, true), 'checkhealth:\n' .. health)
  check(health:find('OK: binary', 1, true), 'checkhealth:\n' .. health)
  check(not health:find('ERROR', 1, true), 'checkhealth:\n' .. health)
  log('ok: :checkhealth seer')

  for _, c in ipairs(seer.clients()) do
    vim.lsp.stop_client(c.id)
  end
  vim.wait(5000, function()
    return #seer.clients() == 0
  end, 50)
end

local ok, err = xpcall(run, debug.traceback)
if ok and not failed then
  log('PASS')
  vim.cmd('qall!')
else
  io.stderr:write(elapsed() .. ' ' .. tostring(err) .. '\n')
  io.stderr:flush()
  vim.cmd('cquit! 1')
end
