#!/usr/bin/env node
// The TypeScript MCP SDK's verdict on each message: a second peer for the
// course's differential tests and for lesson 07.
//
// Rule: a message is judged exactly as the SDK's stdio transport judges one
// line it reads: the line's bytes are decoded as UTF-8 (bad bytes become
// U+FFFD, they are not refused), a trailing "\r" is dropped, JSON.parse reads
// the text, and the SDK's own zod schema JSONRPCMessageSchema (a union of
// JSONRPCRequestSchema, JSONRPCNotificationSchema, JSONRPCResultResponseSchema
// and JSONRPCErrorResponseSchema, all .strict()) decides. The first member of
// the union that accepts the value names the kind.
//
// Usage:
//   node verdicts.mjs < messages.jsonl          one message's JSON text a line
//   node verdicts.mjs --wire < lines.b64         one line's raw bytes a line, base64
//   node verdicts.mjs --version                  the SDK, zod and Node versions
//
// Each input line gives one output line, a JSON object:
//   {"verdict": "request" | "notification" | "response" | "invalid" | "parse-error",
//    "schema": the accepting member schema's name, or null,
//    "issue": the first zod issue as "path: message" (or JSON.parse's error), or null,
//    "issues": {member schema name: its first issue} when no member accepts,
//    "seen": JSON.stringify of the value JSON.parse made (at most 300 characters)}
//
// JSON.parse reads every number as a double, so an integer beyond 2**53 is
// rounded (2**80 comes out as 1.2089258196146292e+24) and 1.0 is the number 1.
// That is part of how the TypeScript SDK sees a message, so it is kept: the
// Python side must send the message's JSON text, never a re-encoded value.

import { readFileSync } from 'node:fs';
import * as types from '@modelcontextprotocol/sdk/types.js';
import { deserializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';

const MEMBERS = [
    ['JSONRPCRequestSchema', 'request'],
    ['JSONRPCNotificationSchema', 'notification'],
    ['JSONRPCResultResponseSchema', 'response'],
    ['JSONRPCErrorResponseSchema', 'response'],
];
const SEEN_LIMIT = 300;

function issueText(issue) {
    const path = issue.path.length ? issue.path.map(String).join('.') + ': ' : '';
    return path + issue.message;
}

function show(value) {
    let text;
    try {
        text = JSON.stringify(value);
    } catch (error) {
        return `(${error.name})`;
    }
    return text.length > SEEN_LIMIT ? text.slice(0, SEEN_LIMIT) + '…' : text;
}

// The first issue of the member schema with the fewest issues (the nearest
// miss; ties go to the earlier member), so a union failure reads as
// "JSONRPCRequestSchema: Unrecognized key: "result"" instead of "Invalid input".
function firstIssue(union, perMember) {
    const top = union.error.issues[0];
    if (top.code !== 'invalid_union') return issueText(top);
    let best = null;
    for (const [name, issues] of perMember) {
        if (best === null || issues.length < best[1].length) best = [name, issues];
    }
    return `${best[0]}: ${issueText(best[1][0])}`;
}

/** The verdict on one line of text, as the SDK's stdio transport reads it. */
function judge(line) {
    let value;
    try {
        value = JSON.parse(line);
    } catch (error) {
        return { verdict: 'parse-error', schema: null, issue: `${error.name}: ${error.message}`, seen: null };
    }
    const union = types.JSONRPCMessageSchema.safeParse(value);
    const perMember = MEMBERS.map(([name]) => [name, types[name].safeParse(value)]);
    const accepted = perMember.find(([, result]) => result.success);
    let verdict;
    if (union.success) {
        if (!accepted) throw new Error('the union accepted a value that none of its members accepts');
        verdict = {
            verdict: MEMBERS.find(([name]) => name === accepted[0])[1],
            schema: accepted[0],
            issue: null,
        };
    } else {
        if (accepted) throw new Error(`${accepted[0]} accepted a value the union refused`);
        const issues = perMember.map(([name, result]) => [name, result.error.issues]);
        verdict = {
            verdict: 'invalid',
            schema: null,
            issue: firstIssue(union, issues),
            issues: Object.fromEntries(issues.map(([name, list]) => [name, issueText(list[0])])),
        };
    }
    // Cross-check with the transport's own function: it throws exactly when
    // the verdict above is "invalid".
    let transportAccepts = true;
    try {
        deserializeMessage(line);
    } catch {
        transportAccepts = false;
    }
    if (transportAccepts !== union.success) throw new Error('deserializeMessage disagrees with the schema');
    verdict.seen = show(value);
    return verdict;
}

/** The text of the first line in `bytes`, decoded as ReadBuffer.readMessage does. */
function firstLine(bytes) {
    const end = bytes.indexOf('\n');
    return bytes.toString('utf8', 0, end === -1 ? bytes.length : end).replace(/\r$/, '');
}

function versions() {
    const read = (path) => JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8')).version;
    return {
        sdk: read('./node_modules/@modelcontextprotocol/sdk/package.json'),
        zod: read('./node_modules/zod/package.json'),
        node: process.version,
    };
}

function main(argv) {
    if (argv.includes('--version')) {
        process.stdout.write(JSON.stringify(versions()) + '\n');
        return;
    }
    const wire = argv.includes('--wire');
    const unknown = argv.filter((arg) => arg !== '--wire');
    if (unknown.length) {
        process.stderr.write(`unknown argument ${unknown[0]}; see the comment at the top of verdicts.mjs\n`);
        process.exitCode = 2;
        return;
    }
    const input = readFileSync(0);
    const lines = [];
    let start = 0;
    while (start < input.length) {
        let end = input.indexOf('\n', start);
        if (end === -1) end = input.length;
        lines.push(input.subarray(start, end));
        start = end + 1;
    }
    const out = [];
    for (const raw of lines) {
        const bytes = wire ? Buffer.from(raw.toString('ascii').trim(), 'base64') : raw;
        out.push(JSON.stringify(judge(firstLine(bytes))));
    }
    process.stdout.write(out.length ? out.join('\n') + '\n' : '');
}

main(process.argv.slice(2));
