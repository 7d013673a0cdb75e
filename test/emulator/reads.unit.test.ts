import { describe, expect, it } from 'vitest';
import { DEMO_ACCOUNT, graphql, newAccount, seed, signIn, useEmulator } from '../support/emulator';

const ctx = useEmulator('sandbox');

const MISC = `query($o: [String!], $u: [String!]) { getF1099miscStatements(otxIds: $o, uploaderIds: $u) {
  errors statements { pageInfo { hasNextPage hasPreviousPage startCursor endCursor } edges { cursor node { otxId } }
  nodes { otxId uploaderId recipientFirstName recipientLastName medicalPayments otherIncome rents } } } }`;
const GENERIC = `query($o: [String!], $u: [String!], $first: Int, $after: String) {
  getStatements(otxIds: $o, uploaderIds: $u, first: $first, after: $after) {
  errors statements { pageInfo { hasNextPage endCursor } nodes { otxId uploaderId formType } } } }`;

type Ids = { otxId: string; uploaderId: string }[];
const uploaderIds = (nodes: { uploaderId: string }[]) => nodes.map((n) => n.uploaderId);

describe('get<Form>Statements: the spec\'s rules', () => {
  it('returns all statements of that form, and only of that form, without arguments', async () => {
    const credential = await signIn(ctx.url);
    await seed(ctx.url, DEMO_ACCOUNT.email, 'F1099misc', 3, 'misc-');
    await seed(ctx.url, DEMO_ACCOUNT.email, 'F3922', 2, 'espp-');
    const res = await graphql(ctx.url, credential, MISC);
    const statements = res.body.data?.getF1099miscStatements.statements;
    expect(uploaderIds(statements.nodes)).toEqual(['misc-1', 'misc-2', 'misc-3']);
    expect(statements.pageInfo.hasNextPage).toBe(false);
    expect(statements.edges.map((e: { node: { otxId: string } }) => e.node.otxId)).toEqual(statements.nodes.map((n: { otxId: string }) => n.otxId));
    expect(res.body.data?.getF1099miscStatements.errors).toEqual([]);
  });

  it('combines otxIds and uploaderIds with AND', async () => {
    const credential = await signIn(ctx.url);
    const [a, b, c] = await seed(ctx.url, DEMO_ACCOUNT.email, 'F1099misc', 3) as [Ids[0], Ids[0], Ids[0]];
    const res = await graphql(ctx.url, credential, MISC, { o: [a.otxId, b.otxId], u: [b.uploaderId, c.uploaderId] });
    expect(uploaderIds(res.body.data?.getF1099miscStatements.statements.nodes)).toEqual([b.uploaderId]);
  });

  it('returns at most one statement per value, even when a value repeats', async () => {
    const credential = await signIn(ctx.url);
    const [a] = await seed(ctx.url, DEMO_ACCOUNT.email, 'F3922', 2) as Ids;
    const q = 'query($u: [String!]) { getF3922Statements(uploaderIds: $u) { statements { nodes { uploaderId dateOptionExercised exercisePricePerShare numberSharesTransferred } } } }';
    const res = await graphql(ctx.url, credential, q, { u: [a!.uploaderId, a!.uploaderId, a!.uploaderId] });
    const nodes = res.body.data?.getF3922Statements.statements.nodes;
    expect(nodes).toHaveLength(1);
    expect(nodes[0]).toMatchObject({ uploaderId: a!.uploaderId, numberSharesTransferred: 100, dateOptionExercised: '2024-03-15' });
  });

  it('refuses arguments other than otxIds and uploaderIds with a GraphQL validation error', async () => {
    const credential = await signIn(ctx.url);
    const res = await graphql(ctx.url, credential, '{ getF1099miscStatements(first: 10) { errors } }');
    expect(res.status).toBe(200);
    expect(res.body.data).toBeUndefined();
    expect(res.body.errors?.[0]).toMatchObject({ message: 'Unknown argument "first" on field "Query.getF1099miscStatements".' });
  });

  it.each([
    [100, false],
    [101, true],
  ])('returns 100 statements when %i match, with hasNextPage %s', async (matching, hasNextPage) => {
    const credential = await signIn(ctx.url);
    await seed(ctx.url, DEMO_ACCOUNT.email, 'F1099misc', matching);
    const statements = (await graphql(ctx.url, credential, MISC)).body.data?.getF1099miscStatements.statements;
    expect(statements.nodes).toHaveLength(100);
    expect(statements.pageInfo.hasNextPage).toBe(hasNextPage);
  });

  it('ignores unknown ids silently', async () => {
    const credential = await signIn(ctx.url);
    const [a] = await seed(ctx.url, DEMO_ACCOUNT.email, 'F1099misc', 2) as Ids;
    const res = await graphql(ctx.url, credential, MISC, { u: ['no-such-id', a!.uploaderId], o: null });
    expect(uploaderIds(res.body.data?.getF1099miscStatements.statements.nodes)).toEqual([a!.uploaderId]);
    expect(res.body.data?.getF1099miscStatements.errors).toEqual([]);
  });
});

describe('getStatements', () => {
  it('returns statements of several forms at once, with their formType', async () => {
    const credential = await signIn(ctx.url);
    await seed(ctx.url, DEMO_ACCOUNT.email, 'Fw2', 1, 'w2-');
    await seed(ctx.url, DEMO_ACCOUNT.email, 'F1099nec', 1, 'nec-');
    const nodes = (await graphql(ctx.url, credential, GENERIC)).body.data?.getStatements.statements.nodes;
    expect(nodes.map((n: { formType: string }) => n.formType)).toEqual(['fw2', 'f1099nec']);
  });

  it('pages with first and after until hasNextPage is false, without gaps or repeats', async () => {
    const credential = await signIn(ctx.url);
    await seed(ctx.url, DEMO_ACCOUNT.email, 'F1099int', 130);
    const seen: string[] = [];
    let after: string | null = null;
    for (let page = 0; page < 10; page++) {
      const statements = (await graphql(ctx.url, credential, GENERIC, { first: 50, after })).body.data?.getStatements.statements;
      seen.push(...uploaderIds(statements.nodes));
      if (!statements.pageInfo.hasNextPage) break;
      after = statements.pageInfo.endCursor as string;
    }
    expect(seen).toHaveLength(130);
    expect(new Set(seen).size).toBe(130);
  });

  it('returns at most 100 statements per page, whatever first asks for', async () => {
    const credential = await signIn(ctx.url);
    await seed(ctx.url, DEMO_ACCOUNT.email, 'F1099int', 120);
    const statements = (await graphql(ctx.url, credential, GENERIC, { first: 500 })).body.data?.getStatements.statements;
    expect(statements.nodes).toHaveLength(100);
    expect(statements.pageInfo.hasNextPage).toBe(true);
  });

  it('combines otxIds and uploaderIds with AND', async () => {
    const credential = await signIn(ctx.url);
    const [a, b] = await seed(ctx.url, DEMO_ACCOUNT.email, 'Fw2', 2) as Ids;
    const res = await graphql(ctx.url, credential, GENERIC, { o: [a!.otxId], u: [b!.uploaderId] });
    expect(res.body.data?.getStatements.statements.nodes).toEqual([]);
  });

  it('answers an invalid cursor with a GraphQL error', async () => {
    const credential = await signIn(ctx.url);
    const res = await graphql(ctx.url, credential, GENERIC, { after: 'not-a-cursor' });
    expect(res.body.errors?.[0]).toMatchObject({ message: expect.stringContaining('Invalid cursor') });
  });
});

describe('isolation between accounts', () => {
  it('never shows, changes or deletes another account\'s statements, even by their ids', async () => {
    const alice = await newAccount(ctx.url, 'alice@example.com');
    const bob = await newAccount(ctx.url, 'bob@example.com');
    const [mine] = await seed(ctx.url, 'alice@example.com', 'F1099misc', 1, 'alice-') as Ids;
    await seed(ctx.url, 'bob@example.com', 'F1099misc', 1, 'bob-');
    const bobAll = await graphql(ctx.url, bob, GENERIC);
    expect(uploaderIds(bobAll.body.data?.getStatements.statements.nodes)).toEqual(['bob-1']);
    const byIds = await graphql(ctx.url, bob, GENERIC, { o: [mine!.otxId] });
    expect(byIds.body.data?.getStatements.statements.nodes).toEqual([]);
    const distinct = await graphql(ctx.url, bob, MISC, { u: ['alice-1'] });
    expect(distinct.body.data?.getF1099miscStatements.statements.nodes).toEqual([]);
    const upd = await graphql(ctx.url, bob, 'mutation($id: String) { updateF1099miscStatements(statements: [{ otxId: $id, statement: { rents: "1.00" } }]) { statements { statement { otxId } messages } } }', { id: mine!.otxId });
    expect(upd.body.data?.updateF1099miscStatements.statements[0].statement).toBeNull();
    const del = await graphql(ctx.url, bob, 'mutation($id: String!) { deleteStatements(otxIds: [$id]) { deleteCount } }', { id: mine!.otxId });
    expect(del.body.data?.deleteStatements.deleteCount).toBe(0);
    const aliceAll = await graphql(ctx.url, alice, GENERIC);
    expect(uploaderIds(aliceAll.body.data?.getStatements.statements.nodes)).toEqual(['alice-1']);
  });

  it('lets two accounts use the same uploaderId, since uploaderIds are unique per account', async () => {
    await newAccount(ctx.url, 'carol@example.com');
    await seed(ctx.url, 'carol@example.com', 'Fw2', 1, 'shared-');
    await expect(seed(ctx.url, DEMO_ACCOUNT.email, 'Fw2', 1, 'shared-')).resolves.toHaveLength(1);
  });
});
