" laya-lsp for Vim through ALE: local code completions from an MLX model.
"
" Put this directory on 'runtimepath' after ALE (see editors/vim/README.md), or copy the ale#linter#Define call
" into your vimrc. Options, all optional, set before this file is sourced:
"   g:laya_lsp_executable  the server program (default 'laya-lsp')
"   g:laya_lsp_args        extra arguments, e.g. ['--model', '/path/to/mlx-model'] (default [])
"   g:laya_lsp_settings    the `laya` settings, camelCase keys as in the README (default {})
"   g:laya_lsp_filetypes   filetypes to attach to
if exists('g:loaded_laya_lsp')
  finish
endif
let g:loaded_laya_lsp = 1
if empty(globpath(&runtimepath, 'autoload/ale/linter.vim'))
  " ALE is not installed or not loaded yet (`packadd ale` must come first).
  finish
endif

let g:laya_lsp_executable = get(g:, 'laya_lsp_executable', 'laya-lsp')
let g:laya_lsp_args = get(g:, 'laya_lsp_args', [])
let g:laya_lsp_settings = get(g:, 'laya_lsp_settings', {})
let g:laya_lsp_filetypes = get(g:, 'laya_lsp_filetypes', ['python', 'javascript', 'typescript', 'go', 'rust',
      \ 'c', 'cpp', 'java', 'lua', 'sh'])

function! s:Executable(buffer) abort
  return g:laya_lsp_executable
endfunction

function! s:Command(buffer) abort
  return '%e' . join(map(copy(g:laya_lsp_args), {_, a -> ' ' . ale#Escape(a)}), '')
endfunction

" ALE starts no language server without a project root: the nearest VCS or project marker, else the file's folder.
function! s:ProjectRoot(buffer) abort
  for l:marker in ['.git', '.hg']
    let l:dir = ale#path#FindNearestDirectory(a:buffer, l:marker)
    if !empty(l:dir)
      return fnamemodify(l:dir, ':h:h')
    endif
  endfor
  for l:marker in ['pyproject.toml', 'package.json', 'go.mod', 'Cargo.toml']
    let l:file = ale#path#FindNearestFile(a:buffer, l:marker)
    if !empty(l:file)
      return fnamemodify(l:file, ':h')
    endif
  endfor
  return expand('#' . a:buffer . ':p:h')
endfunction

for s:filetype in g:laya_lsp_filetypes
  call ale#linter#Define(s:filetype, {
  \   'name': 'laya',
  \   'lsp': 'stdio',
  \   'executable': function('s:Executable'),
  \   'command': function('s:Command'),
  \   'project_root': function('s:ProjectRoot'),
  \   'initialization_options': {b -> g:laya_lsp_settings},
  \   'lsp_config': {b -> {'laya': g:laya_lsp_settings}},
  \})
endfor
unlet! s:filetype

" :LayaStats shows laya/stats (recent requests, cache use, model) in a scratch window, one key a line.
let s:stats_id = -1

function! s:ShowStats(conn_id, response) abort
  if !has_key(a:response, 'id') || a:response.id != s:stats_id || has_key(a:response, 'method')
    return
  endif
  let s:stats_id = -1
  new
  setlocal buftype=nofile bufhidden=wipe noswapfile
  if has_key(a:response, 'error')
    call setline(1, 'laya/stats failed: ' . json_encode(a:response.error))
    return
  endif
  let l:result = a:response.result
  call setline(1, map(sort(keys(l:result)), {_, k -> k . ': ' . json_encode(l:result[k])}))
endfunction

function! s:OnReady(linter, lsp_details) abort
  let l:conn_id = a:lsp_details.connection_id
  call ale#lsp#RegisterCallback(l:conn_id, function('s:ShowStats'))
  let s:stats_id = ale#lsp#Send(l:conn_id, [0, 'laya/stats', {'recent': 20}])
endfunction

function! s:Stats() abort
  let l:linters = filter(copy(ale#linter#Get(&filetype)), {_, l -> l.name is# 'laya'})
  if empty(l:linters)
    echoerr 'laya: no laya linter for filetype ' . &filetype
    return
  endif
  call ale#lsp_linter#StartLSP(bufnr(''), l:linters[0], function('s:OnReady'))
endfunction

command! LayaStats call s:Stats()
" Code actions: ALE's :ALECodeAction lists every language server's actions, laya's included.
