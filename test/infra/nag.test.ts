/**
 * cdk-nag's AWS Solutions rules over each stage exactly as bin/app.ts builds it (bin/stage.ts): no finding may stand
 * unacknowledged, and every acknowledgement says why.
 */

import { readFileSync } from 'node:fs';
import { App, Stack, Validations } from 'aws-cdk-lib';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { defineStage } from '../../bin/stage.ts';
import { STAGES } from '../../bin/stages.ts';

interface Finding {
  rule: string;
  path: string;
}

/** Synthesizes under the AWS Solutions pack; the findings left unacknowledged (none when synthesis passes). */
function unacknowledgedFindings(app: App): Finding[] {
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  try {
    app.synth();
    return [];
  } catch (err) {
    const report = /found in: (\S+validation-report\.json)/.exec(String((err as Error).message))?.[1];
    if (!report) throw err;
    const parsed = JSON.parse(readFileSync(report, 'utf8')) as {
      pluginReports: { violations: { ruleName: string; violatingConstructs: { constructPath: string }[] }[] }[];
    };
    return parsed.pluginReports.flatMap((p) =>
      p.violations.flatMap((v) => v.violatingConstructs.map((c) => ({ rule: v.ruleName, path: c.constructPath }))),
    );
  }
}

/** Every acknowledgement recorded in the tree: rule id → reasons. */
function acknowledgements(app: App): Array<{ id: string; reason: string; path: string }> {
  return app.node
    .findAll()
    .flatMap((c) =>
      c.node.metadata
        .filter((m) => m.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
        .flatMap((m) => Object.entries(m.data as Record<string, string>).map(([id, reason]) => ({ id, reason, path: c.node.path }))),
    );
}

const stageApp = (name: string) => {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  defineStage(app, STAGES[name]!);
  return app;
};

describe('cdk-nag (AWS Solutions)', () => {
  for (const name of Object.keys(STAGES)) {
    it(`finds nothing unacknowledged in the ${name} stage`, () => {
      const app = stageApp(name);

      const findings = unacknowledgedFindings(app);

      expect(findings).toEqual([]);
    });

    it(`has a reason for every acknowledgement in the ${name} stage`, () => {
      const acks = acknowledgements(stageApp(name));

      expect(acks.length).toBeGreaterThan(10);
      for (const ack of acks) expect(ack.reason.length, `${ack.id} at ${ack.path}`).toBeGreaterThan(40);
    });
  }

  it('finds nothing unacknowledged in a stage with its own domain (the site at the root, the API at /v1)', () => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const domain = {
      name: 'law.asof.test',
      certificateArn: 'arn:aws:acm:us-east-1:123456789012:certificate/0a1b2c3d-1234-4abc-9def-0123456789ab',
      hostedZone: { id: 'Z0123456789', name: 'asof.test' },
    };
    defineStage(app, { ...STAGES.prod!, domain });

    const findings = unacknowledgedFindings(app);

    expect(findings).toEqual([]);
    expect(app.node.findAll().some((c) => c.node.id === 'Domain' && c.node.path.endsWith('/Domain/Domain'))).toBe(true);
  });

  it('would catch a finding: a bucket without TLS enforcement, logs or encryption settings is reported', () => {
    const app = new App();
    new Bucket(new Stack(app, 'careless'), 'Bucket');

    const findings = unacknowledgedFindings(app);

    expect(findings.map((f) => f.rule)).toEqual(expect.arrayContaining(['AwsSolutions-S1', 'AwsSolutions-S10']));
  });
});
