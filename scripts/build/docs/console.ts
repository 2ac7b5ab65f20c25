// The docs site's API console (try it, D-92): Swagger UI's standalone bundle beside the page, the description from
// description.js (shared with the reference page, so it works from file:// too). Served by the sandbox, the page
// reads the demo keys from ./try-it.json, exchanges them for tokens of both environments and sends every request to
// the sandbox it came from; opened elsewhere it shows the description and says where try-it works. A hosted sandbox
// serves no keys (D-113): the console then asks the visitor for theirs.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';

const require = createRequire(import.meta.url);
const swaggerDir = dirname(require.resolve('swagger-ui-dist/package.json'));
export const SWAGGER_UI_VERSION: string = require('swagger-ui-dist/package.json').version;

/** The files of Swagger UI the console needs, copied as they are. */
export const SWAGGER_FILES = ['swagger-ui-bundle.js', 'swagger-ui.css', 'LICENSE', 'NOTICE'];

export function swaggerFile(name: string): Buffer {
  return readFileSync(resolve(swaggerDir, name));
}

/** The words of the link every operation of the reference has to its place in the console. */
export const CONSOLE_LINK_TEXT = 'Try it in the API console';

/** The browser script of the console: token exchange, servers of this origin, one bearer token per environment. */
function consoleScript(): string {
  return `(function () {
  'use strict';
  var status = document.getElementById('care-try-it');
  var description = window.careApiDescription;
  function say(html, state) {
    status.innerHTML = html;
    status.setAttribute('data-state', state);
  }
  function servedBySandbox() {
    return location.protocol === 'http:' || location.protocol === 'https:';
  }
  /** The reference's jumps to an operation (#operation/<id>) as the console's (#/<tag>/<id>). */
  function consoleAnchors(document) {
    var tags = {};
    for (var path in document.paths) for (var method in document.paths[path]) {
      var operation = document.paths[path][method];
      if (operation && operation.operationId && operation.tags) tags[operation.operationId] = operation.tags[0].replace(/\\s/g, '_');
      // the reference's link to this console, which the console itself does not need to show
      if (operation && typeof operation.description === 'string') {
        var link = operation.description.lastIndexOf('\\n\\n[${CONSOLE_LINK_TEXT}](');
        if (link >= 0) operation.description = operation.description.slice(0, link);
      }
    }
    var text = JSON.stringify(document).replace(/\\]\\(#operation\\/(\\w+)\\)/g, function (whole, id) {
      return tags[id] ? '](#/' + encodeURIComponent(tags[id]) + '/' + id + ')' : whole;
    });
    return JSON.parse(text);
  }
  description = consoleAnchors(description);
  function localServers(origin) {
    var copy = JSON.parse(JSON.stringify(description));
    (function visit(node) {
      if (!node || typeof node !== 'object') return;
      if (Array.isArray(node.servers)) {
        node.servers = node.servers.map(function (server) {
          var url = String(server.url).replace(/^https?:\\/\\/\\{host\\}/, origin);
          return { url: url, description: (server.description || '').split(';')[0] + ' at ' + origin };
        });
        node.servers.sort(function (a, b) { return (b.url.indexOf('/sandbox') >= 0) - (a.url.indexOf('/sandbox') >= 0); });
      }
      if (node.style === 'deepObject' && node.example && typeof node.example === 'object') node.example = nested(node.example);
      for (var key in node) if (key !== 'servers') visit(node[key]);
    })(copy);
    return copy;
  }
  /** The reference page's flattened filter examples ({"status][eq": "10"}) nested again for editing. */
  function nested(example) {
    var out = {};
    for (var key in example) {
      var path = key.split('][');
      var at = out;
      for (var i = 0; i < path.length - 1; i++) at = at[path[i]] = at[path[i]] || {};
      at[path[path.length - 1]] = example[key];
    }
    return out;
  }
  function exchange(origin, key, audience) {
    var form = new URLSearchParams({ grant_type: 'client_credentials', client_id: key.keyId, client_secret: key.secret, audience: audience });
    // credentials omitted: a refused key answers 401 with a Basic challenge, which must not open the browser's login prompt
    return fetch(origin + '/auth/v2/oauth/token', { method: 'POST', body: form, credentials: 'omit' }).then(function (response) {
      if (!response.ok) throw new Error('token exchange for ' + audience + ' answered ' + response.status);
      return response.json();
    }).then(function (body) { return body.access_token; });
  }
  /** deepObject values Swagger UI sends as JSON (filter[status]={"eq":"10"}) become the grammar's keys. */
  function expandDeepObjects(url) {
    var parsed = new URL(url);
    var out = new URLSearchParams();
    parsed.searchParams.forEach(function (value, key) {
      var object = null;
      if (/^\\s*\\{/.test(value)) { try { object = JSON.parse(value); } catch (e) { object = null; } }
      if (!object || typeof object !== 'object') return out.append(key, value);
      (function flatten(prefix, node) {
        for (var inner in node) {
          var name = prefix + '[' + inner + ']';
          if (node[inner] && typeof node[inner] === 'object' && !Array.isArray(node[inner])) flatten(name, node[inner]);
          else out.append(name, Array.isArray(node[inner]) ? node[inner].join(',') : String(node[inner]));
        }
      })(key, object);
    });
    parsed.search = out.toString();
    return parsed.toString();
  }
  function start(spec, tokens) {
    window.careConsole = SwaggerUIBundle({
      spec: spec,
      dom_id: '#console',
      deepLinking: true,
      docExpansion: 'list',
      defaultModelsExpandDepth: -1,
      displayRequestDuration: true,
      tryItOutEnabled: !!tokens,
      supportedSubmitMethods: tokens ? ['get', 'post', 'patch', 'delete', 'head'] : [],
      validatorUrl: null,
      requestInterceptor: function (request) {
        request.url = expandDeepObjects(request.url);
        var token = tokens && (request.url.indexOf('/care/v0/sandbox') >= 0 ? tokens.sandbox : tokens.production);
        if (token) request.headers.Authorization = 'Bearer ' + token;
        return request;
      },
      onComplete: function () { document.body.setAttribute('data-console', 'ready'); },
    });
  }
  function escapeText(text) {
    return String(text).replace(/[&<>"]/g, function (c) { return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c]; });
  }
  /** A hosted sandbox serves no demo keys (D-113): the visitor enters the key they were given, per environment. */
  function askForKey(origin, why) {
    var tokens = { sandbox: null, production: null };
    // no <form>: the docs' Content-Security-Policy allows no form submission (form-action 'none', D-115)
    say('<span id="care-key">' + escapeText(why) + ' <label>Environment <select name="audience"><option value="sandbox">sandbox</option><option value="production">production</option></select></label> ' +
      '<label>Key id <input name="keyId" autocomplete="off"></label> <label>Secret <input name="secret" type="password" autocomplete="off"></label> ' +
      '<button type="button" id="care-key-use">Use this key</button> <span id="care-key-status"></span></span>', 'ask');
    var fields = document.getElementById('care-key');
    function field(name) { return fields.querySelector('[name="' + name + '"]').value; }
    document.getElementById('care-key-use').addEventListener('click', function () {
      var audience = field('audience');
      var note = document.getElementById('care-key-status');
      exchange(origin, { keyId: field('keyId'), secret: field('secret') }, audience).then(function (token) {
        tokens[audience] = token;
        note.textContent = 'Requests to the ' + audience + ' server now use this key.';
        status.setAttribute('data-state', 'ready');
      }, function (error) {
        note.textContent = 'That key was refused (' + error.message + ').';
      });
    });
    start(localServers(origin), tokens);
  }
  if (!servedBySandbox()) {
    say('Try it works when the local sandbox serves these docs: run <code>npm start</code> (or <code>npx care-sandbox</code>) and open <code>http://localhost:4020/docs/console.html</code>. Here the console only shows the description.', 'offline');
    start(description, null);
    return;
  }
  fetch('try-it.json').then(function (response) {
    if (!response.ok) throw new Error('no try-it.json');
    return response.json();
  }).then(function (config) {
    var origin = location.origin;
    if (!config.sandbox || !config.production) return askForKey(origin, config.ask || 'Enter an API key.');
    return Promise.all([exchange(origin, config.sandbox, 'sandbox'), exchange(origin, config.production, 'production')]).then(function (tokens) {
      say('Try it: requests go to the sandbox at <code>' + origin + '</code>, authorised with its demo keys (' + config.sandbox.name + '): pick the server (sandbox or production) above the operations.', 'ready');
      start(localServers(origin), { sandbox: tokens[0], production: tokens[1] });
    });
  }).catch(function (error) {
    say('Try it works when the local sandbox serves these docs (<code>npm start</code>, then <code>http://localhost:4020/docs/console.html</code>); this server does not (' + String(error.message) + ').', 'offline');
    start(description, null);
  });
})();
`;
}

export function consolePage(title: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}: API console</title>
<!-- Generated by the build's docs step: run \`npm run build\`. Swagger UI ${SWAGGER_UI_VERSION} (swagger-ui-dist), beside this page: no CDN, no web font. -->
<link rel="icon" href="data:,">
<link rel="stylesheet" href="swagger-ui.css">
<style>
  body { margin: 0; font-family: sans-serif; }
  #care-try-it { margin: 0; padding: 12px 20px; background: #f4f6f8; border-bottom: 1px solid #d8dde3; font-size: 14px; }
  #care-try-it[data-state="offline"] { background: #fff7e0; }
  #care-try-it label { margin-right: 0.5em; }
  #care-try-it a { margin-right: 1em; }
</style>
</head>
<body>
<nav id="care-nav" style="padding: 8px 20px;"><a href="index.html">API reference</a> · API console</nav>
<p id="care-try-it" role="status" data-state="starting">Starting the console…</p>
<div id="console"></div>
<script src="swagger-ui-bundle.js"></script>
<script src="description.js"></script>
<script>
${consoleScript()}</script>
</body>
</html>
`;
}

/** The console's deep link of an operation: Swagger UI's `#/<tag>/<operationId>`. */
export function consoleLink(tag: string, operationId: string): string {
  return `console.html#/${encodeURIComponent(tag.trim().replace(/\s/g, '_'))}/${encodeURIComponent(operationId)}`;
}
