// The per-environment derivation of scripts/build/environments.ts on a small document: it keeps what the
// markers say, narrows the env header, prunes what nothing uses, and leaves the complete document untouched.
import { describe, expect, it } from 'vitest';
import { environmentDocument } from '../scripts/build/environments.ts';

function complete(): any {
  const env = { $ref: '#/components/headers/X-CareAPI-Env' };
  const ok = (schema: string) => ({
    description: 'ok',
    headers: { 'X-CareAPI-Env': env },
    content: { 'application/json': { schema: { $ref: `#/components/schemas/${schema}` } } },
  });
  return {
    openapi: '3.1.0',
    info: { title: 'T', version: '1' },
    servers: [
      { url: 'https://h/v0', 'x-care-environment': 'production' },
      { url: 'https://h/v0/sandbox', 'x-care-environment': 'sandbox' },
    ],
    tags: [{ name: 'Things' }, { name: 'Triggers' }, { name: 'Beta' }],
    'x-tagGroups': [{ name: 'All', tags: ['Things'] }, { name: 'Sandbox', tags: ['Triggers'] }, { name: 'Beta', tags: ['Beta'] }],
    paths: {
      '/things': {
        get: { tags: ['Things'], responses: { '200': ok('Thing') } },
        // Operation-level marker: only this method goes.
        post: { tags: ['Beta'], 'x-care-environments': ['sandbox'], responses: { '200': ok('BetaThing') } },
      },
      '/trigger': { 'x-care-environments': ['sandbox'], post: { tags: ['Triggers'], responses: { '202': ok('Trigger') } } },
    },
    webhooks: {
      'thing.created': {
        post: {
          tags: ['Things'],
          parameters: [{ $ref: '#/components/parameters/Env' }],
          responses: { '2XX': { description: 'ok' } },
        },
      },
    },
    components: {
      schemas: {
        Thing: { type: 'object', properties: { part: { $ref: '#/components/schemas/Part' } } },
        Part: { type: 'string' },
        BetaThing: { type: 'string' },
        Trigger: { type: 'object', properties: { only: { $ref: '#/components/schemas/TriggerOnly' } } },
        TriggerOnly: { type: 'string' },
      },
      headers: { 'X-CareAPI-Env': { schema: { type: 'string', enum: ['Production', 'Sandbox'] }, example: 'Production' } },
      parameters: { Env: { name: 'X-CareAPI-Env', in: 'header', schema: { type: 'string', enum: ['Production', 'Sandbox'] }, example: 'Production' } },
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
    },
  };
}

describe('environmentDocument', () => {
  it('production: its server, no sandbox-only path or method, header narrowed, unused parts pruned', () => {
    const source = complete();
    const production = environmentDocument(source, 'production');
    expect(production.servers.map((s: any) => s.url)).toEqual(['https://h/v0']);
    expect(Object.keys(production.paths)).toEqual(['/things']);
    expect(Object.keys(production.paths['/things'])).toEqual(['get']);
    expect(production.components.headers['X-CareAPI-Env']).toMatchObject({ schema: { enum: ['Production'] }, example: 'Production' });
    expect(production.components.parameters.Env).toMatchObject({ schema: { enum: ['Production'] }, example: 'Production' });
    // Transitively unused schemas go; those still reached (through a reached schema) stay; security schemes stay.
    expect(Object.keys(production.components.schemas).sort()).toEqual(['Part', 'Thing']);
    expect(Object.keys(production.components.securitySchemes)).toEqual(['bearer']);
    expect(production.tags.map((t: any) => t.name)).toEqual(['Things']);
    expect(production['x-tagGroups']).toEqual([{ name: 'All', tags: ['Things'] }]);
    expect(source).toEqual(complete());
  });

  it('sandbox: its server, every path, the header says Sandbox', () => {
    const sandbox = environmentDocument(complete(), 'sandbox');
    expect(sandbox.servers.map((s: any) => s.url)).toEqual(['https://h/v0/sandbox']);
    expect(Object.keys(sandbox.paths)).toEqual(['/things', '/trigger']);
    expect(Object.keys(sandbox.paths['/things'])).toEqual(['get', 'post']);
    expect(sandbox.components.headers['X-CareAPI-Env']).toMatchObject({ schema: { enum: ['Sandbox'] }, example: 'Sandbox' });
    expect(sandbox.components.parameters.Env).toMatchObject({ schema: { enum: ['Sandbox'] }, example: 'Sandbox' });
    expect(Object.keys(sandbox.components.schemas).sort()).toEqual(['BetaThing', 'Part', 'Thing', 'Trigger', 'TriggerOnly']);
  });

  it('refuses a document with no server for the environment or no header value for it', () => {
    const noServer = complete();
    noServer.servers.pop();
    expect(() => environmentDocument(noServer, 'sandbox')).toThrow(/x-care-environment: sandbox/);
    const noValue = complete();
    noValue.components.headers['X-CareAPI-Env'].schema.enum = ['Production'];
    expect(() => environmentDocument(noValue, 'sandbox')).toThrow(/X-CareAPI-Env declares no value for sandbox/);
  });
});
