-- seer for Neovim: starts `seer serve`, seer's language server, for Go
-- buffers and adds :SeerPredict, :SeerExplore, :SeerCancel, :SeerWitness
-- (! for the picture, in a browser), :SeerOther and :SeerRestart.
--
--   require('seer').setup {
--     cmd = { 'seer', 'serve' },
--     settings = { seer = { atomicity = true, timeout = '5m', runOnSave = false } },
--   }
--
-- Neovim 0.11+ registers the server with vim.lsp.config/vim.lsp.enable;
-- 0.8 to 0.10 start it with vim.lsp.start; 0.7 with vim.lsp.start_client
-- and vim.lsp.buf_attach_client. The root is the nearest go.mod.

local gotest = require('seer.gotest')

local M = {}

M.name = 'seer'

local defaults = {
  -- The command that starts the server (a list).
  cmd = { 'seer', 'serve' },
  -- The server's configuration (lsp/config.go), answered to
  -- workspace/configuration: { seer = { atomicity, timeout, runOnSave,
  -- buildFlags, env, explore } }. A table without the "seer" key is taken as the
  -- section itself.
  settings = {},
  filetypes = { 'go' },
  -- Refresh code lenses on BufEnter, InsertLeave and BufWritePost.
  codelens = true,
  -- Echo the stages of a prediction ($/progress) in the command line.
  progress = true,
  -- Called as on_attach(client, bufnr) after seer's own setup.
  on_attach = nil,
  -- Opens the witness picture (:SeerWitness!): a command list to which
  -- the file's path is appended, or a function(path). nil: $BROWSER,
  -- else vim.ui.open (0.10+), else xdg-open (open on macOS).
  browser = nil,
  capabilities = nil,
}

M.config = vim.deepcopy(defaults)

--- The last answer of seer.predict sent by :SeerPredict or a lens, as
--- {test, result} (result: {findings, predicted, tests, cancelled?, error?}).
M.last = nil

local has = function(v)
  return vim.fn.has('nvim-' .. v) == 1
end

-- Client methods: 0.11 wants client:method(...), 0.7 client.method(...).
local function call(client, method, ...)
  if has('0.11') then
    return client[method](client, ...)
  end
  return client[method](...)
end

local function notify(msg, level)
  vim.notify('seer: ' .. msg, level or vim.log.levels.INFO)
end

--- Returns the seer clients, optionally only those attached to bufnr.
function M.clients(bufnr)
  local all = (vim.lsp.get_clients or vim.lsp.get_active_clients)()
  local out = {}
  for _, c in ipairs(all) do
    if c.name == M.name and (not bufnr or (vim.lsp.buf_is_attached(bufnr, c.id))) then
      table.insert(out, c)
    end
  end
  return out
end

local function client_for(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local c = M.clients(bufnr)[1]
  if not c then
    notify('no seer server is attached to this buffer (is seer installed? :checkhealth seer)', vim.log.levels.WARN)
  end
  return c, bufnr
end

--- Returns the buffers a client is attached to.
function M.buffers_of(client)
  if type(client.attached_buffers) == 'table' then
    local out = {}
    for b, attached in pairs(client.attached_buffers) do
      if attached then
        table.insert(out, b)
      end
    end
    return out
  end
  return vim.lsp.get_buffers_by_client_id(client.id)
end

--- Returns the directory of the nearest go.mod above the buffer's file,
--- else the file's directory; nil for a buffer without a file.
function M.root_dir(bufnr)
  local name = vim.api.nvim_buf_get_name(bufnr or 0)
  if name == '' or name:match('^%a+://') then
    return nil
  end
  local dir = vim.fn.fnamemodify(name, ':p:h')
  local d = dir
  while true do
    if vim.loop.fs_stat(d .. '/go.mod') then
      return d
    end
    local parent = vim.fn.fnamemodify(d, ':h')
    if parent == d then
      return dir
    end
    d = parent
  end
end

-- The settings as sent: { seer = {...} }, with empty tables as JSON
-- objects (an empty Lua table encodes as []).
local function settings()
  local s = vim.deepcopy(M.config.settings or {})
  if s.seer == nil then
    s = { seer = s }
  end
  if type(s.seer) == 'table' and vim.tbl_isempty(s.seer) then
    s.seer = vim.empty_dict()
  end
  if type(s.seer) == 'table' and type(s.seer.env) == 'table' and vim.tbl_isempty(s.seer.env) then
    s.seer.env = vim.empty_dict()
  end
  return s
end

local function echo_progress(_, result, ctx)
  if not M.config.progress or type(result) ~= 'table' or type(result.value) ~= 'table' then
    return
  end
  local v = result.value
  local client = vim.lsp.get_client_by_id(ctx.client_id)
  local title = v.title
  if client and client.messages and client.messages.progress then
    local p = client.messages.progress[result.token]
    title = title or (p and p.title)
  end
  local text = (title or 'seer') .. (v.message and (': ' .. v.message) or '')
  if not text:match('^seer') then
    text = 'seer: ' .. text
  end
  vim.api.nvim_echo({ { text } }, false, {})
end

--- seer's work-done progress by client id and token: {title, message,
--- cancellable, done}, kept after the end (its message says how the
--- prediction ended). :SeerCancel cancels the running ones (Neovim's own
--- record of progress differs between versions).
M.progress = {}

local function track_progress(result, ctx)
  if type(result) ~= 'table' or type(result.value) ~= 'table' or result.token == nil then
    return
  end
  local v = result.value
  local by_token = M.progress[ctx.client_id] or {}
  M.progress[ctx.client_id] = by_token
  local p = by_token[result.token] or {}
  by_token[result.token] = p
  if v.kind == 'begin' then
    p.title, p.done = v.title, false
  end
  if v.cancellable ~= nil then
    p.cancellable = v.cancellable
  end
  if v.message then
    p.message = v.message
  end
  if v.kind == 'end' then
    p.done = true
  end
end

local function handlers()
  return {
    ['$/progress'] = function(err, result, ctx, config)
      local default = vim.lsp.handlers['$/progress']
      local r = default and default(err, result, ctx, config)
      track_progress(result, ctx)
      echo_progress(err, result, ctx)
      return r
    end,
  }
end

local function refresh_lenses(bufnr)
  if M.config.codelens and vim.api.nvim_get_current_buf() == bufnr then
    pcall(vim.lsp.codelens.refresh, { bufnr = bufnr })
  end
end

local group

local function on_attach(client, bufnr)
  if M.config.codelens then
    vim.api.nvim_clear_autocmds({ group = group, buffer = bufnr })
    vim.api.nvim_create_autocmd({ 'BufEnter', 'InsertLeave', 'BufWritePost' }, {
      group = group,
      buffer = bufnr,
      callback = function()
        refresh_lenses(bufnr)
      end,
    })
    refresh_lenses(bufnr)
  end
  if M.config.on_attach then
    M.config.on_attach(client, bufnr)
  end
end

--- The client configuration for a root directory.
function M.client_config(root)
  return {
    name = M.name,
    cmd = M.config.cmd,
    root_dir = root,
    workspace_folders = root and { { uri = vim.uri_from_fname(root), name = root } } or nil,
    settings = settings(),
    -- Neovim 0.7 neither answers workspace/configuration (it does not
    -- announce it) nor sends didChangeConfiguration by itself: without
    -- these, the server ran with its defaults. The server takes the
    -- section from initializationOptions too (editors/README.md).
    init_options = settings(),
    capabilities = M.config.capabilities or vim.lsp.protocol.make_client_capabilities(),
    handlers = handlers(),
    on_attach = on_attach,
    flags = { debounce_text_changes = 150 },
  }
end

local function is_go(bufnr)
  return vim.tbl_contains(M.config.filetypes, vim.bo[bufnr].filetype)
end

-- Neovim 0.7: the client started for each root directory.
local started = {}

--- Starts (or reuses) the server for a buffer and attaches it.
function M.attach(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  if not vim.api.nvim_buf_is_valid(bufnr) or vim.bo[bufnr].buftype ~= '' or not is_go(bufnr) then
    return nil
  end
  local root = M.root_dir(bufnr)
  if not root then
    return nil
  end
  if vim.lsp.start then
    -- 0.8 attaches vim.lsp.start's client to the current buffer.
    return vim.api.nvim_buf_call(bufnr, function()
      return vim.lsp.start(M.client_config(root), { bufnr = bufnr })
    end)
  end
  -- Neovim 0.7: one client per root, attached to each buffer. A client
  -- that is still initializing is not among the active ones: remember it.
  local known = started[root] and vim.lsp.get_client_by_id(started[root])
  if known and not known.is_stopped() then
    vim.lsp.buf_attach_client(bufnr, known.id)
    return known.id
  end
  local id = vim.lsp.start_client(M.client_config(root))
  if id then
    started[root] = id
    vim.lsp.buf_attach_client(bufnr, id)
  end
  return id
end

local function answer_text(test, r, explore)
  local what = test and ((explore and 'exploring ' or 'predicting ') .. test) or 'predicting all tests'
  if type(r) ~= 'table' then
    return what .. ': no answer'
  elseif r.cancelled and (r.findings or 0) > 0 then
    -- An exploration stopped keeps what its runs found (lsp/job.go).
    return string.format('%s: cancelled: %d finding%s kept', what, r.findings, r.findings == 1 and '' or 's')
  elseif r.cancelled then
    return what .. ': cancelled'
  elseif r.error and r.error ~= '' then
    return what .. ': failed: ' .. r.error
  elseif (r.findings or 0) == 0 then
    return what .. ': no findings'
  end
  return string.format('%s: %d finding%s', what, r.findings, r.findings == 1 and '' or 's')
end

--- Runs the server's seer.predict for a test of the buffer's package (all
--- tests when opts.test is nil and opts.all is set; else the test under
--- the cursor). opts.explore runs the test's steered runs too, as its
--- "seer: explore" lens does. Calls opts.on_done(result) when the
--- prediction ends.
--- Refuses (returns false) while the buffer has unsaved changes.
function M.predict(opts)
  opts = opts or {}
  local client, bufnr = client_for(0)
  if not client then
    return false
  end
  local test = opts.test
  if not test and not opts.all then
    test = gotest.test_at_cursor(0)
    if not test then
      notify('the cursor is not in a test function (func TestXxx(t *testing.T)); :SeerPredict! predicts all tests', vim.log.levels.WARN)
      return false
    end
  end
  -- The recording builds and runs the files on disk. Writing the user's
  -- buffer behind their back is not ours to do: refuse, and say how.
  if vim.bo[bufnr].modified then
    notify('save the buffer first (:w) – the recording runs the file on disk', vim.log.levels.WARN)
    return false
  end
  local args = { uri = vim.uri_from_bufnr(bufnr) }
  if test then
    args.test = test
  end
  local explore = opts.explore and test ~= nil
  if explore then
    args.explore = true
  end
  notify((test and ((explore and 'exploring ' or 'predicting ') .. test) or 'predicting all tests') .. '…')
  call(client, 'request', 'workspace/executeCommand', { command = 'seer.predict', arguments = { args } }, function(err, result)
    if err then
      M.last = { test = test, result = { findings = 0, predicted = 0, error = err.message or tostring(err) } }
    else
      M.last = { test = test, result = result }
    end
    notify(answer_text(test, M.last.result, explore), (err or (type(result) == 'table' and result.error)) and vim.log.levels.ERROR or nil)
    refresh_lenses(vim.api.nvim_get_current_buf())
    vim.cmd('doautocmd <nomodeline> User SeerPredictDone')
    if opts.on_done then
      opts.on_done(M.last.result)
    end
  end, bufnr)
  return true
end

-- Converts a byte column of a buffer line to UTF-16 code units.
local function utf16_col(bufnr, lnum, col)
  local line = vim.api.nvim_buf_get_lines(bufnr, lnum, lnum + 1, false)[1] or ''
  col = math.min(col, #line)
  if has('0.11') then
    return vim.str_utfindex(line, 'utf-16', col, false)
  end
  local _, u16 = vim.str_utfindex(line, col)
  return u16
end

--- Returns seer's diagnostic under the cursor (the narrowest holding the
--- cursor, else the first on the line).
function M.diagnostic_at_cursor(win)
  win = win or 0
  local bufnr = vim.api.nvim_win_get_buf(win)
  local row, col = unpack(vim.api.nvim_win_get_cursor(win))
  local best, best_size, first
  for _, d in ipairs(vim.diagnostic.get(bufnr, { lnum = row - 1 })) do
    if d.source == 'seer' then
      first = first or d
      local end_lnum = d.end_lnum or d.lnum
      local end_col = d.end_col or d.col
      local inside = (d.lnum < row - 1 or d.col <= col) and (end_lnum > row - 1 or col <= end_col)
      local size = (end_lnum - d.lnum) * 1e6 + (end_col - d.col)
      if inside and (not best or size < best_size) then
        best, best_size = d, size
      end
    end
  end
  return best or first, bufnr
end

local function open_location(client, shown)
  if type(shown) ~= 'table' or type(shown.uri) ~= 'string' then
    return
  end
  local caps = vim.lsp.protocol.make_client_capabilities()
  if caps.window and caps.window.showDocument and caps.window.showDocument.support then
    return -- the server opened it with window/showDocument
  end
  if shown.range then
    local loc = { uri = shown.uri, range = shown.range }
    if vim.lsp.util.show_document then
      vim.lsp.util.show_document(loc, client.offset_encoding or 'utf-16', { focus = true })
    else
      vim.lsp.util.jump_to_location(loc, client.offset_encoding or 'utf-16')
    end
  else
    vim.cmd('split ' .. vim.fn.fnameescape(vim.uri_to_fname(shown.uri)))
    vim.bo.readonly = true
    vim.bo.modifiable = false
  end
end

--- The command that opens path in a browser (see the browser option):
--- $BROWSER may list commands separated by ':' (the first is used) and
--- hold %s for the path.
function M.browser_command(path)
  local b = M.config.browser
  if type(b) == 'table' then
    local cmd = vim.deepcopy(b)
    table.insert(cmd, path)
    return cmd
  end
  local env = vim.env.BROWSER
  if env and env ~= '' then
    local first = vim.split(env, ':', { plain = true })[1]
    local words = vim.split(vim.trim(first), '%s+')
    local has_path = false
    for i, w in ipairs(words) do
      if w:find('%s', 1, true) then
        words[i] = w:gsub('%%s', function()
          return path
        end)
        has_path = true
      end
    end
    if not has_path then
      table.insert(words, path)
    end
    return words
  end
  if vim.fn.has('mac') == 1 then
    return { 'open', path }
  end
  return { 'xdg-open', path }
end

--- Opens path (the witness picture) in a browser.
function M.open_in_browser(path)
  if type(M.config.browser) == 'function' then
    return M.config.browser(path)
  end
  if M.config.browser == nil and (vim.env.BROWSER or '') == '' and vim.ui and vim.ui.open then
    return vim.ui.open(path)
  end
  local cmd = M.browser_command(path)
  local ok, id = pcall(vim.fn.jobstart, cmd, { detach = true })
  if not ok or id <= 0 then
    notify('could not start ' .. cmd[1] .. ' to open ' .. path .. ' (set $BROWSER or the browser option)', vim.log.levels.ERROR)
    return false
  end
  notify('witness picture: ' .. path)
  return true
end

--- Runs one of the finding's quick fixes by command name
--- (seer.showWitness, seer.showOtherAccess) for the diagnostic under the
--- cursor, and opens what it answers if the client cannot be asked to.
--- With opts.html (seer.showWitness), asks for the witness's picture and
--- opens it in a browser. Calls on_done(answer) at the end.
function M.run_finding_command(command, on_done, opts)
  local client, bufnr = client_for(0)
  if not client then
    return false
  end
  local d = M.diagnostic_at_cursor(0)
  if not d then
    notify('no finding under the cursor', vim.log.levels.WARN)
    return false
  end
  local end_lnum, end_col = d.end_lnum or d.lnum, d.end_col or d.col
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    range = {
      start = { line = d.lnum, character = utf16_col(bufnr, d.lnum, d.col) },
      ['end'] = { line = end_lnum, character = utf16_col(bufnr, end_lnum, end_col) },
    },
    context = { diagnostics = {}, only = { 'quickfix' } },
  }
  call(client, 'request', 'textDocument/codeAction', params, function(err, actions)
    if err then
      notify('code actions: ' .. (err.message or tostring(err)), vim.log.levels.ERROR)
      return
    end
    local cmd
    for _, a in ipairs(actions or {}) do
      local c = type(a.command) == 'table' and a.command or a
      if c.command == command then
        cmd = c
        break
      end
    end
    if not cmd then
      notify('the server offers no ' .. command .. ' here (was the test re-run?)', vim.log.levels.WARN)
      return
    end
    local arguments = vim.deepcopy(cmd.arguments or {})
    if opts and opts.html and type(arguments[1]) == 'table' then
      arguments[1].html = true
    end
    call(client, 'request', 'workspace/executeCommand', { command = cmd.command, arguments = arguments }, function(err2, shown)
      if err2 then
        notify(command .. ': ' .. (err2.message or tostring(err2)), vim.log.levels.ERROR)
        return
      end
      if opts and opts.html then
        if type(shown) == 'table' and type(shown.uri) == 'string' then
          M.open_in_browser(vim.uri_to_fname(shown.uri))
        end
      else
        open_location(client, shown)
      end
      if on_done then
        on_done(shown)
      end
    end, bufnr)
  end, bufnr)
  return true
end

--- :SeerWitness
function M.witness(on_done)
  return M.run_finding_command('seer.showWitness', on_done)
end

--- :SeerWitness!: the witness as a picture (swimlanes, one per
--- goroutine), a self-contained HTML file opened in a browser.
function M.witness_picture(on_done)
  return M.run_finding_command('seer.showWitness', on_done, { html = true })
end

--- :SeerOther
function M.other_access(on_done)
  return M.run_finding_command('seer.showOtherAccess', on_done)
end

--- :SeerRestart: stops the seer clients and starts them again for their
--- buffers.
function M.restart()
  local buffers = {}
  local clients = M.clients()
  for _, c in ipairs(clients) do
    for _, b in ipairs(M.buffers_of(c)) do
      buffers[b] = true
    end
    call(c, 'stop')
  end
  vim.wait(5000, function()
    for _, c in ipairs(clients) do
      if not call(c, 'is_stopped') then
        return false
      end
    end
    return true
  end, 50)
  for b in pairs(buffers) do
    M.attach(b)
  end
  if next(buffers) == nil then
    M.attach(0)
  end
end

--- :SeerCancel: cancels seer's running predictions (as a progress
--- bar's cancel does, window/workDoneProgress/cancel). An exploration
--- stops after its current run and keeps what its finished runs found.
--- Returns how many it cancelled.
function M.cancel()
  local n = 0
  for _, c in ipairs(M.clients()) do
    for token, p in pairs(M.progress[c.id] or {}) do
      if not p.done and p.cancellable then
        call(c, 'notify', 'window/workDoneProgress/cancel', { token = token })
        n = n + 1
      end
    end
  end
  if n == 0 then
    notify('no prediction is running', vim.log.levels.WARN)
  end
  return n
end

local function commands()
  local create = vim.api.nvim_create_user_command
  create('SeerPredict', function(o)
    M.predict({ test = o.args ~= '' and o.args or nil, all = o.bang })
  end, { nargs = '?', bang = true, desc = 'seer: predict the test under the cursor (or the named one; ! for all tests)' })
  create('SeerExplore', function(o)
    M.predict({ test = o.args ~= '' and o.args or nil, explore = true })
  end, { nargs = '?', desc = 'seer: explore the test under the cursor (or the named one): steered runs after the first' })
  create('SeerCancel', function()
    M.cancel()
  end, { desc = 'seer: cancel the running predictions (an exploration keeps what it found)' })
  create('SeerWitness', function(o)
    if o.bang then
      M.witness_picture()
    else
      M.witness()
    end
  end, { bang = true, desc = 'seer: show the witness schedule of the finding under the cursor (! as a picture, in a browser)' })
  create('SeerOther', function()
    M.other_access()
  end, { desc = 'seer: go to the other access of the finding under the cursor' })
  create('SeerRestart', function()
    M.restart()
  end, { desc = 'seer: restart the language server' })
end

--- Sets seer up: see the defaults at the top of this file.
function M.setup(opts)
  M.config = vim.tbl_deep_extend('force', vim.deepcopy(defaults), opts or {})
  if opts and opts.cmd then
    M.config.cmd = opts.cmd -- lists are replaced, not merged
  end
  if opts and opts.filetypes then
    M.config.filetypes = opts.filetypes
  end
  group = vim.api.nvim_create_augroup('seer', { clear = true })
  commands()
  if has('0.11') and vim.lsp.config and vim.lsp.enable then
    vim.lsp.config(M.name, {
      cmd = M.config.cmd,
      filetypes = M.config.filetypes,
      root_markers = { 'go.mod' },
      settings = settings(),
      capabilities = M.config.capabilities,
      handlers = handlers(),
      on_attach = on_attach,
    })
    vim.lsp.enable(M.name)
    return
  end
  vim.api.nvim_create_autocmd('FileType', {
    group = group,
    pattern = M.config.filetypes,
    callback = function(args)
      M.attach(args.buf)
    end,
  })
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(b) and is_go(b) then
      M.attach(b)
    end
  end
end

M.enclosing_test = gotest.enclosing_test
M.test_at_cursor = gotest.test_at_cursor

return M
